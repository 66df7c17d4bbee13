import type { FaultRuleInput } from '../../e2e/service/testing.js';

/**
 * Fault rules for the local service (e2e/service/faults.ts), named for the outage or loss each one
 * plays, to post with a kit's `fault(rule)`. Test code only.
 */

/**
 * Which requests a rule acts on besides its listener and operation: one part (`partNumber`), how
 * many matches it lets through first (`skip`), how many it acts on (`times`; 0: every one until
 * the rules are cleared; default 1).
 */
export type RuleScope = Pick<FaultRuleInput, 'partNumber' | 'skip' | 'times'>;

/** Storage answers part PUTs (UploadPart, §5) with HTTP `status` (e.g. 500, 503), for `scope`. */
export function partsRefused(status: number, scope: RuleScope = {}): FaultRuleInput {
  return { target: 'storage', operation: 'UploadPart', ...scope, action: { type: 'status', status } };
}

/**
 * Storage reads a part PUT's whole body, drops the connection before answering, and stores the part
 * later (after the service's `partStoreDelayMs`): an answer lost while the part is in doubt.
 */
export function partAnswerLost(scope: RuleScope = {}): FaultRuleInput {
  return { target: 'storage', operation: 'UploadPart', ...scope, action: { type: 'dropWhileStoring' } };
}

/** Storage takes part PUTs and never reads their body nor answers, for `scope`. */
export function partsHung(scope: RuleScope = {}): FaultRuleInput {
  return { target: 'storage', operation: 'UploadPart', ...scope, action: { type: 'hang' } };
}

/** The gateway holds its answers to `operation` (e.g. `add-capture`, §4.4) `ms` milliseconds, for `scope`. */
export function gatewayDelayed(operation: string, ms: number, scope: RuleScope = {}): FaultRuleInput {
  return { target: 'gateway', operation, ...scope, action: { type: 'latency', ms } };
}

/**
 * The progress-records service answers its `progress` calls (only those of HTTP `method`, e.g.
 * `POST`, when given) with HTTP `status`, every one until the rules are cleared.
 */
export function recordsRefused(status: number, method?: string): FaultRuleInput {
  const rule: FaultRuleInput = {
    target: 'progress',
    operation: 'progress',
    times: 0,
    action: { type: 'status', status },
  };
  return method === undefined ? rule : { ...rule, method };
}
