import { AppError, detailsOf, ErrorCode } from '@gw/kit';
import { createAccount } from './create-account.js';
import { loadSignupOwner, signupUnavailable } from './signup-owner.js';
import type { ClaimOutcome, SignupDeps } from './ports/signup.js';
import { isCodeShaped, isTokenShaped, normaliseSignupEmail, signupName, utcDay } from './signup-rules.js';

export interface CompleteSignupInput {
  /** With code: POST /x-sign/verify. */
  email?: string;
  code?: string;
  /** Alone: GET /x-sign/activate. */
  token?: string;
  ipAddress: string;
}

export interface SignedUp {
  accountId: bigint;
  name: string;
  email: string;
}

const NAME_ATTEMPTS = 5;

async function claim(deps: SignupDeps, input: CompleteSignupInput): Promise<string> {
  const { limits, hash } = deps.signupPolicy;
  const now = deps.clock.now();
  let outcome: ClaimOutcome;
  const token = input.token ?? '';
  const byLink = token !== '';
  if (byLink) {
    outcome = isTokenShaped(token)
      ? await deps.signupStore.claimByToken(
          { tokenHash: hash(`token:${token}`), nowMs: now.getTime() },
          limits,
        )
      : { kind: 'invalid' };
  } else {
    const email = normaliseSignupEmail(input.email ?? '');
    const code = (input.code ?? '').trim();
    outcome = isCodeShaped(code)
      ? await deps.signupStore.claimByCode(
          {
            emailKey: email,
            codeHash: hash(`code:${email}:${code}`),
            nowMs: now.getTime(),
            day: utcDay(now),
          },
          limits,
        )
      : { kind: 'invalid' };
  }
  switch (outcome.kind) {
    case 'claimed':
      return outcome.email;
    case 'invalid':
      // The activation link's page names the link, the verify form's answer the code.
      throw new AppError(
        ErrorCode.InvalidRequest,
        byLink ? 'Invalid or expired activation link' : 'Invalid or expired verification code',
      );
    case 'wrong':
      throw new AppError(ErrorCode.InvalidRequest, 'Wrong verification code');
    case 'dead':
      throw new AppError(
        ErrorCode.InvalidRequest,
        'Too many wrong codes: this code is no longer valid, request a new one',
      );
    case 'blocked':
      throw new AppError(
        ErrorCode.RateLimited,
        'Too many failed verification attempts for this address today',
      );
  }
}

/**
 * POST /x-sign/verify and GET /x-sign/activate: consumes the pending signup (once: a second
 * use, a concurrent one included, finds nothing), creates the account under the signup owner
 * with the signup credit granted from the owner's balance (one ledger movement, root mints), and
 * queues the welcome mail with the new API key. The key appears nowhere else.
 */
export async function completeSignup(deps: SignupDeps, input: CompleteSignupInput): Promise<SignedUp> {
  const email = await claim(deps, input);
  const owner = await loadSignupOwner(deps);
  for (let attempt = 0; attempt < NAME_ATTEMPTS; attempt++) {
    const name = signupName(email, attempt);
    try {
      const created = await createAccount(deps, {
        callerId: owner.id,
        fields: { name, email },
        creditGrantedNano: deps.signupPolicy.creditNano,
        days: undefined,
        idempotencyKey: '',
        ipAddress: input.ipAddress,
      });
      const queued = await deps.signupMail.sendWelcome({
        accountId: created.account.id,
        secretKey: created.secretKey,
      });
      if (!queued) {
        throw signupUnavailable(`account ${created.account.id} created but its welcome mail was not queued`);
      }
      return { accountId: created.account.id, name: created.account.name, email };
    } catch (error) {
      if (!(error instanceof AppError)) {
        throw error;
      }
      const taken = detailsOf(error, ErrorCode.Conflict)?.field;
      if (taken === 'name') {
        continue;
      }
      if (taken === 'email') {
        throw new AppError(ErrorCode.Conflict, 'Email already registered', { field: 'email' });
      }
      if (error.code === ErrorCode.InsufficientCredit) {
        throw signupUnavailable('the signup owner cannot fund the signup credit', error);
      }
      throw error;
    }
  }
  throw signupUnavailable('no free name found for the new account');
}
