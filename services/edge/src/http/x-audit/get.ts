import { formatUsd } from '@gw/kit';
import type { accounts } from '@gw/proto';
import { callerOf } from '../../auth/authenticate.js';
import { z } from 'zod';
import type { Route } from '../route.js';

const decimal = z.string().meta({ description: 'USD as an exact decimal string' });
const totals = z
  .object({
    owner_id: z.number().int(),
    minted: decimal,
    transfers_in: decimal,
    balances: decimal,
    usage: decimal,
    fees: decimal,
    expired: decimal,
    difference: decimal,
    balanced: z.boolean(),
  })
  .meta({ id: 'ConservationTotals' });
const auditResponse = z.object({
  object: z.literal('conservation_audit'),
  balanced: z.boolean(),
  overall: totals.optional(),
  owners: z.array(totals),
  unbalanced_owners: z.array(z.number().int()),
});

function render(totals: accounts.ConservationTotals | undefined) {
  if (!totals) {
    return undefined;
  }
  // Decimal strings: exact to the nano-USD whatever the size.
  return {
    owner_id: Number(totals.ownerId),
    minted: formatUsd(totals.mintedNano),
    transfers_in: formatUsd(totals.transfersInNano),
    balances: formatUsd(totals.balancesNano),
    usage: formatUsd(totals.usageNano),
    fees: formatUsd(totals.feesNano),
    expired: formatUsd(totals.expiredNano),
    difference: formatUsd(totals.differenceNano),
    balanced: totals.differenceNano === 0n,
  };
}

/**
 * GET /x-audit (root): the conservation check computed live — credit minted = balances + usage
 * charged + fees + expired, to the nano-USD — overall and per owner, naming any difference.
 */
export const getAudit: Route = {
  method: 'get',
  path: '/x-audit',
  access: 'root',
  doc: { summary: 'The conservation check of credit', tag: 'accounts', response: auditResponse },
  async handle(deps, _req, res) {
    const caller = callerOf(res);
    const checked = await deps.accounts.checkConservation({ callerId: caller.id });
    const owners = checked.owners.map(render);
    const unbalanced = checked.owners
      .filter((owner) => owner.differenceNano !== 0n)
      .map((owner) => Number(owner.ownerId));
    res.json({
      object: 'conservation_audit',
      balanced: checked.overall?.differenceNano === 0n && unbalanced.length === 0,
      overall: render(checked.overall),
      owners,
      unbalanced_owners: unbalanced,
    });
  },
};
