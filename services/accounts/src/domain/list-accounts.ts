import { AppError, ErrorCode } from '@gw/kit';
import { assertManages, assertSelfOrManages } from './access.js';
import { parseIdentifier } from './identifier.js';
import { dnaFilterOf, orderOf, pageOf } from './listing.js';
import { loadCaller } from './load-caller.js';
import { viewOf } from './lots.js';
import type { AccountView } from './model.js';
import { emailKey, nameKey } from './names.js';
import type { ListQuery } from './ports/accounts.js';
import type { AccountsDeps } from './ports/deps.js';
import { findInTenant, lookupOf } from './tenancy.js';

export interface ListFilter {
  id?: bigint;
  name?: string;
  email?: string;
  level?: number;
  dna?: string;
  /** The `{identifier}` path segment: one account (id, name, e-mail, DNA) or a prefix filter. */
  identifier?: string;
}

export interface ListAccountsInput {
  callerId: bigint;
  /** children: GET /x-users; descendants: GET /x-dna. */
  reach: 'children' | 'descendants';
  filter: ListFilter;
  /** 0 means the default. */
  page: number;
  size: number;
  order: string;
}

export interface AccountPage {
  views: AccountView[];
  total: number;
  page: number;
  size: number;
}

/**
 * Lists the caller's children or descendants, filtered and paged. Every query is confined to
 * rows whose DNA strictly extends the caller's, so lists and totals never count rows out of
 * scope. An identifier naming one account answers it alone, except a DNA path on /x-dna, which
 * selects that account's subtree (it and all its descendants). A named account in the caller's
 * tenant but outside its subtree is 403; one in another tenant, or nowhere, is 404
 * (docs/decisions.md §9).
 */
export async function listAccounts(deps: AccountsDeps, input: ListAccountsInput): Promise<AccountPage> {
  const caller = await loadCaller(deps, input.callerId, 'read');
  const { page, size, offset } = pageOf(input.page, input.size);
  const order = orderOf(input.order);
  const now = deps.clock.now();
  const { filter } = input;

  const query: ListQuery = { scopeDna: caller.dna, order, limit: size, offset };
  if (input.reach === 'children') {
    query.parentId = caller.id;
  }
  if (filter.identifier !== undefined) {
    const identifier = parseIdentifier(filter.identifier);
    if (!identifier) {
      throw new AppError(
        ErrorCode.InvalidRequest,
        'identifier is not an id, name, e-mail, DNA path or L/G/R/T/F filter',
      );
    }
    if (identifier.kind === 'filter') {
      if (identifier.field === 'level' && identifier.value > 9) {
        // The same range as `?level=`: a Level outside it matches nothing and is refused.
        throw new AppError(ErrorCode.InvalidRequest, 'identifier: Level must be an integer from 0 to 9');
      }
      query[identifier.field] = identifier.value;
    } else {
      const target = await findInTenant(deps.store.accounts, caller, lookupOf(identifier, caller));
      if (identifier.kind === 'dna' && input.reach === 'descendants') {
        // The caller's own path names its whole subtree (itself excluded, as always).
        assertSelfOrManages(caller, target);
        query.dnaPrefix = target.dna;
      } else {
        assertManages(caller, target);
        const lots = await deps.store.lots.live([target.id], now);
        return { views: page === 1 ? [viewOf(target, lots, now)] : [], total: 1, page, size };
      }
    }
  }
  if (filter.id !== undefined) {
    if (filter.id <= 0n) {
      throw new AppError(ErrorCode.InvalidRequest, 'id must be a positive integer');
    }
    query.id = filter.id;
  }
  if (filter.name !== undefined && filter.name !== '') {
    if (filter.name.length > 256) {
      throw new AppError(ErrorCode.InvalidRequest, 'name is too long');
    }
    query.nameContains = nameKey(filter.name);
  }
  if (filter.email !== undefined && filter.email !== '') {
    query.emailKey = emailKey(filter.email);
  }
  if (filter.level !== undefined) {
    if (!Number.isInteger(filter.level) || filter.level < 0 || filter.level > 9) {
      throw new AppError(ErrorCode.InvalidRequest, 'level must be an integer from 0 to 9');
    }
    query.level = filter.level;
  }
  if (filter.dna !== undefined && filter.dna !== '') {
    query.dnaPrefix = dnaFilterOf(filter.dna);
  }

  const { rows, total } = await deps.store.accounts.list(query);
  const lots = await deps.store.lots.live(
    rows.map((row) => row.id),
    now,
  );
  const views = rows.map((row) =>
    viewOf(
      row,
      lots.filter((lot) => lot.accountId === row.id),
      now,
    ),
  );
  return { views, total, page, size };
}
