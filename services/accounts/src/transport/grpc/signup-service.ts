import type { AsyncHandlers } from '@gw/kit';
import type { accounts as pb } from '@gw/proto';
import { completeSignup } from '../../domain/complete-signup.js';
import { getAccountContact } from '../../domain/get-account-contact.js';
import { requestSignupCode } from '../../domain/request-signup-code.js';
import type { SignupDeps } from '../../domain/ports/signup.js';

type SignupRpcs = Pick<
  AsyncHandlers<pb.AccountsServiceServer>,
  'requestSignupCode' | 'completeSignup' | 'getAccountContact'
>;

/** Thin gRPC adapter of the signup RPCs and the mailer's contact lookup. */
export function signupHandlers(deps: SignupDeps): SignupRpcs {
  return {
    requestSignupCode: async (request) => {
      await requestSignupCode(deps, { email: request.email, ipAddress: request.ipAddress });
      return {};
    },
    completeSignup: async (request) => {
      const done = await completeSignup(deps, {
        email: request.email,
        code: request.code,
        token: request.token,
        ipAddress: request.ipAddress,
      });
      return { accountId: done.accountId, name: done.name, email: done.email };
    },
    getAccountContact: (request) => getAccountContact(deps, request.accountId),
  };
}
