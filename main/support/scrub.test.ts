import { describe, expect, it } from 'vitest';
import { scrubSecrets, settingsWithoutSecrets } from './scrub.js';

describe('scrubSecrets', () => {
  it('keeps a URL’s host, port and path, and hides its query, fragment and user info', () => {
    const cases: [text: string, scrubbed: string][] = [
      [
        'PUT https://s3.example.com/b/k.mp4?X-Amz-Signature=abc&X-Amz-Credential=AKIA%2F1.',
        'PUT https://s3.example.com/b/k.mp4?[hidden].',
      ],
      ['GET http://user:pw123@gw.local:8080/v1/captures#frag)', 'GET http://gw.local:8080/v1/captures?[hidden])'],
      ['see https://gw.example.com/v1/health, then retry', 'see https://gw.example.com/v1/health, then retry'],
    ];
    for (const [text, scrubbed] of cases) expect(scrubSecrets(text), text).toBe(scrubbed);
  });

  it('hides the secrets it is given wherever they are, longest first, and leaves short ones alone', () => {
    expect(scrubSecrets('key abcd1234xyz and abcd1234 and ab', ['abcd1234', 'abcd1234xyz', 'ab'])).toBe(
      'key [hidden] and [hidden] and ab',
    );
  });

  it('hides bearer values, JSON Web Tokens and named values in text and JSON', () => {
    expect(scrubSecrets('Authorization: Bearer abc.def-ghi')).toBe('Authorization: Bearer [hidden]');
    expect(scrubSecrets('got eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig_nature back')).toBe('got [hidden] back');
    expect(scrubSecrets('password=hunter22 api_key: k-123, refresh_token=r1')).toBe(
      'password=[hidden] api_key: [hidden], refresh_token=[hidden]',
    );
    expect(scrubSecrets('{"email":"a@b.c","password":"p\\"w","apiKey":"k1"}')).toBe(
      '{"email":"a@b.c","password":"[hidden]","apiKey":"[hidden]"}',
    );
  });

  it('keeps a line one line', () => {
    expect(scrubSecrets('a\nb\u202ec')).toBe('a\\nb\\u202ec');
  });
});

describe('settingsWithoutSecrets', () => {
  it('says only whether each secret is set, reads into groups, and scrubs the other strings', () => {
    expect(
      settingsWithoutSecrets(
        {
          settings: {
            baseUrl: 'https://gw.example.com/?token=t0',
            sealedPassword: 'ZW5j',
            sealedApiKey: '',
            email: 'a@b.c',
          },
          progressTokens: { scope: 'x', sealedToken: 'ZW5jOnQ=' },
          password: null,
        },
        ['ZW5j'],
      ),
    ).toEqual({
      settings: {
        baseUrl: 'https://gw.example.com/?[hidden]',
        sealedPassword: '(set)',
        sealedApiKey: '(not set)',
        email: 'a@b.c',
      },
      progressTokens: { scope: 'x', sealedToken: '(set)' },
      password: '(not set)',
    });
  });
});
