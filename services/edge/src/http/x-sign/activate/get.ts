import { AppError, ErrorCode } from '@gw/kit';
import { parseInput, type Route } from '../../route.js';
import { HTML_ERRORS, requireSignupEnabled } from '../answers.js';
import { activateQuery } from '../schemas.js';
import { activationPage } from './page.js';

/**
 * GET /x-sign/activate?token= (no key): the link of the verification mail. Creates the account
 * like /x-sign/verify and answers an HTML page; failures get the failure page from the signup
 * error handler.
 */
export const getSignupActivate: Route = {
  method: 'get',
  path: '/x-sign/activate',
  access: 'public',
  doc: {
    summary: 'The activation link of the verification mail (an HTML page)',
    tag: 'signup',
    query: activateQuery,
    response: 'html',
    errorBody: 'html',
    errors: [404, 409, 429],
  },
  async handle(deps, req, res) {
    res.locals[HTML_ERRORS] = true;
    requireSignupEnabled(deps);
    const { token } = parseInput(activateQuery, req.query);
    if (token === '') {
      throw new AppError(ErrorCode.InvalidRequest, 'Invalid or expired activation link');
    }
    const done = await deps.accounts.completeSignup({ email: '', code: '', token, ipAddress: req.ip ?? '' });
    res
      .type('html')
      .send(
        activationPage(
          true,
          'Your account is ready',
          `Account ${done.name} was created. Its API key was sent to ${done.email}.`,
        ),
      );
  },
};
