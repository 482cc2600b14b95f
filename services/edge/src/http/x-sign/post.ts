import type { Route } from '../route.js';
import { parseInput } from '../route.js';
import { requireSignupEnabled } from './answers.js';
import { signupAnswer, signupBody } from './schemas.js';

/** POST /x-sign (no key): mails a verification code and an activation link to a new address. */
export const postSignup: Route = {
  method: 'post',
  path: '/x-sign',
  access: 'public',
  doc: {
    summary: 'Mail a verification code and an activation link',
    tag: 'signup',
    body: signupBody,
    response: signupAnswer,
    errorBody: signupAnswer,
    errors: [404, 409, 429],
  },
  async handle(deps, req, res) {
    requireSignupEnabled(deps);
    const body = parseInput(signupBody, req.body);
    await deps.accounts.requestSignupCode({ email: body.email, ipAddress: req.ip ?? '' });
    res.json({ success: true, message: 'Verification code sent successfully' });
  },
};
