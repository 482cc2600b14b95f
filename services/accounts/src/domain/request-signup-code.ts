import { AppError, ErrorCode } from '@gw/kit';
import type { AccountRecord } from './model.js';
import { emailKey } from './names.js';
import { nameScopeOf, tenantOf } from './tenancy.js';
import { loadSignupOwner, mailOwnerOf, signupUnavailable } from './signup-owner.js';
import type { Reservation, SignupDeps } from './ports/signup.js';
import { generateCode, generateToken, ipBucket, normaliseSignupEmail, utcDay } from './signup-rules.js';

export interface RequestSignupCodeInput {
  email: string;
  ipAddress: string;
}

/**
 * Is the address (in its given or its ASCII-domain form) an account already, where signups go
 * (the signup owner's tenant: e-mails are unique per tenant)?
 */
export async function isRegistered(
  deps: SignupDeps,
  owner: AccountRecord,
  raw: string,
  normal: string,
): Promise<boolean> {
  const scope = nameScopeOf(
    { isRoot: false, isOwner: false, parentId: owner.id, ownerId: tenantOf(owner) },
    0n,
  );
  for (const key of new Set([emailKey(raw), emailKey(normal)])) {
    if (await deps.store.accounts.findOne({ by: 'email', emailKey: key, scope }, '.')) {
      return true;
    }
  }
  return false;
}

/**
 * POST /x-sign: a 6-digit code and an activation token for a new address, mailed together and
 * valid 10 minutes. Refused for a registered address, within 2 minutes of the address's last
 * code, and (SAFE_ENABLE) past the per-IP and daily caps. The limits are checked and the pending
 * signup stored in one atomic step; when the mail cannot be queued the step is undone and the
 * caller gets `unavailable`: no code exists that was not sent.
 */
export async function requestSignupCode(deps: SignupDeps, input: RequestSignupCodeInput): Promise<void> {
  const email = normaliseSignupEmail(input.email);
  const owner = await loadSignupOwner(deps);
  if (await isRegistered(deps, owner, input.email, email)) {
    throw new AppError(ErrorCode.Conflict, 'Email already registered', { field: 'email' });
  }
  const { limits, hash } = deps.signupPolicy;
  const now = deps.clock.now();
  const code = generateCode();
  const token = generateToken();
  const reservation: Reservation = {
    emailKey: email,
    ipBucket: ipBucket(input.ipAddress),
    day: utcDay(now),
    nowMs: now.getTime(),
    codeHash: hash(`code:${email}:${code}`),
    tokenHash: hash(`token:${token}`),
  };
  const outcome = await deps.signupStore.reserveCode(reservation, limits);
  switch (outcome) {
    case 'cooldown':
      throw new AppError(ErrorCode.RateLimited, 'Please wait before requesting another verification code');
    case 'ip_cap':
      throw new AppError(ErrorCode.RateLimited, 'Too many verification codes requested from this IP today');
    case 'daily_cap':
      throw new AppError(ErrorCode.RateLimited, 'Too many verification codes requested today');
    case 'reserved':
      break;
  }
  const queued = await deps.signupMail.sendVerification({ ownerId: mailOwnerOf(owner), email, code, token });
  if (!queued) {
    await deps.signupStore.releaseCode(reservation, limits).catch(() => undefined);
    throw signupUnavailable('the verification mail could not be queued');
  }
}
