import { describe, expect, it } from 'vitest';
import type { CommandRunner } from './eject.js';
import { blockDeviceOf, ejectCard, windowsEjectScript } from './eject.js';

/** A stand-in runner: records each command and answers from `answers` in turn (exit 0 when none is left). */
function standIn(...answers: { code: number; stderr?: string }[]) {
  const calls: [string, string[]][] = [];
  const run: CommandRunner = async (command, args) => {
    calls.push([command, [...args]]);
    const a = answers.shift() ?? { code: 0 };
    return { code: a.code, stdout: '', stderr: a.stderr ?? '' };
  };
  return { calls, run };
}

const MOUNTS = [
  'sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0',
  '/dev/nvme0n1p2 / ext4 rw,relatime 0 0',
  '/dev/sdc1 /media/ana/X4\\040CARD fuseblk rw,nosuid,nodev,relatime,user_id=0,group_id=0 0 0',
  '/dev/sdb1 /media/ana/X4_CARD exfat rw,nosuid,nodev,relatime,uid=1000 0 0',
  '',
].join('\n');

describe('ejectCard', () => {
  it('on Linux unmounts the block device mounted at the card, then powers it off, with udisksctl', async () => {
    const s = standIn();
    const r = await ejectCard('/media/ana/X4_CARD', 'linux', s.run, MOUNTS);
    expect(s.calls).toEqual([
      ['udisksctl', ['unmount', '-b', '/dev/sdb1']],
      ['udisksctl', ['power-off', '-b', '/dev/sdb1']],
    ]);
    expect(r).toEqual({ ejected: true, message: 'X4_CARD was ejected: you can take it out of the reader.' });
    // A name with a space, as the kernel writes it (\040); a trailing slash is the same place.
    const spaced = standIn();
    await ejectCard('/media/ana/X4 CARD/', 'linux', spaced.run, MOUNTS);
    expect(spaced.calls[0]).toEqual(['udisksctl', ['unmount', '-b', '/dev/sdc1']]);
  });

  it('on Linux, a busy card is not powered off, and the sentence says what to do', async () => {
    const s = standIn({
      code: 1,
      stderr:
        'Error unmounting /dev/sdb1: GDBus.Error:org.freedesktop.UDisks2.Error.DeviceBusy: Error unmounting /dev/sdb1: target is busy\n',
    });
    const r = await ejectCard('/media/ana/X4_CARD', 'linux', s.run, MOUNTS);
    expect(s.calls).toEqual([['udisksctl', ['unmount', '-b', '/dev/sdb1']]]);
    expect(r).toEqual({
      ejected: false,
      message:
        'X4_CARD could not be ejected: a program is still using it (a file manager window or a terminal open on it, a player showing a recording). Close it and press Eject again.',
    });
  });

  it('on Linux, a card no longer mounted, or udisksctl missing, is said without running anything wrong', async () => {
    const gone = standIn();
    const r = await ejectCard('/media/ana/OTHER', 'linux', gone.run, MOUNTS);
    expect(gone.calls).toEqual([]);
    expect(r.ejected).toBe(false);
    expect(r.message).toBe(
      'OTHER could not be ejected: no disk is mounted at /media/ana/OTHER any more. If it is still in the reader, eject it from the file manager.',
    );
    const missing: CommandRunner = async () => {
      throw Object.assign(new Error('spawn udisksctl ENOENT'), { code: 'ENOENT' });
    };
    const m = await ejectCard('/media/ana/X4_CARD', 'linux', missing, MOUNTS);
    expect(m).toEqual({
      ejected: false,
      message:
        'X4_CARD could not be ejected (udisksctl: udisksctl could not be started (ENOENT)). Eject it from the file manager before taking it out.',
    });
  });

  it('on Linux, a reader that refuses the power-off still leaves the card unmounted and safe', async () => {
    const s = standIn({ code: 0 }, { code: 1, stderr: 'Error powering off drive: not a USB device\n' });
    const r = await ejectCard('/media/ana/X4_CARD', 'linux', s.run, MOUNTS);
    expect(r.ejected).toBe(true);
    expect(r.message).toBe(
      'X4_CARD was unmounted: you can take it out of the reader (the reader itself stayed powered: Error powering off drive: not a USB device).',
    );
  });

  it('on macOS runs diskutil eject on the mount point; a dissenting process is said as busy', async () => {
    const s = standIn();
    expect(await ejectCard('/Volumes/X4_CARD', 'darwin', s.run)).toEqual({
      ejected: true,
      message: 'X4_CARD was ejected: you can take it out of the reader.',
    });
    expect(s.calls).toEqual([['diskutil', ['eject', '/Volumes/X4_CARD']]]);
    const busy = standIn({
      code: 1,
      stderr: 'Volume X4_CARD on disk4s1 failed to unmount: dissented by PID 812 (/usr/bin/vim)\n',
    });
    const r = await ejectCard('/Volumes/X4_CARD', 'darwin', busy.run);
    expect(r.ejected).toBe(false);
    expect(r.message).toMatch(
      /^X4_CARD could not be ejected: a program is still using it .*Close it and press Eject again\.$/,
    );
  });

  it("on Windows invokes the shell's Eject verb on the drive through PowerShell", async () => {
    const s = standIn();
    expect((await ejectCard('E:\\', 'win32', s.run)).ejected).toBe(true);
    expect(s.calls).toEqual([
      ['powershell.exe', ['-NoProfile', '-NonInteractive', '-Command', windowsEjectScript('E:')]],
    ]);
    expect(windowsEjectScript('E:')).toBe(
      "$d = (New-Object -ComObject Shell.Application).Namespace(17).ParseName('E:'); if (-not $d) { [Console]::Error.WriteLine('Drive E: not found'); exit 1 }; $d.InvokeVerb('Eject'); for ($i = 0; $i -lt 20; $i++) { if (-not (Test-Path 'E:\\')) { exit 0 }; Start-Sleep -Milliseconds 250 }; [Console]::Error.WriteLine('Drive E: is in use'); exit 1",
    );
    const busy = standIn({ code: 1, stderr: 'Drive E: is in use\r\n' });
    expect((await ejectCard('E:\\', 'win32', busy.run)).message).toMatch(
      /^E: could not be ejected: a program is still using it/,
    );
  });

  it('finds the device of a mount point from /proc/self/mounts, the last mount winning', () => {
    expect(blockDeviceOf(`${MOUNTS}/dev/sdd1 /media/ana/X4_CARD exfat rw 0 0\n`, '/media/ana/X4_CARD')).toBe(
      '/dev/sdd1',
    );
    expect(blockDeviceOf(MOUNTS, '/media/ana')).toBeUndefined();
  });
});
