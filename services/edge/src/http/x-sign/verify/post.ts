import { parseInput, type Route } from '../../route.js';
import { requireSignupEnabled } from '../answers.js';
import { signupAnswer, verifiedResponse, verifyBody } from '../schemas.js';

/**
 * POST /x-sign/verify (no key): with the right code, creates the account and mails its API key
 * (the welcome mail); the answer names the account but never carries the key.
 */
export const postSignupVerify: Route = {
  method: 'post',
  path: '/x-sign/verify',
  access: 'public',
  doc: {
    summary: 'Create the account with the mailed code',
    tag: 'signup',
    body: verifyBody,
    response: verifiedResponse,
    errorBody: signupAnswer,
    errors: [404, 409, 429],
  },
  async handle(deps, req, res) {
    requireSignupEnabled(deps);
    const body = parseInput(verifyBody, req.body);
    const done = await deps.accounts.completeSignup({
      email: body.email,
      code: body.code,
      token: '',
      ipAddress: req.ip ?? '',
    });
    res.json({
      success: true,
      message: 'Account created: the API key was sent by e-mail',
      user: { id: Number(done.accountId), name: done.name, email: done.email },
    });
  },
};
