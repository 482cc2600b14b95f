import { AppError, ErrorCode, logServerSide, toAppError, toHttp, type Logger } from '@gw/kit';
import type { ErrorRequestHandler, Response } from 'express';
import type { EdgeDeps } from '../../deps.js';
import { activationPage } from './activate/page.js';

/**
 * Signup answers `{ success, message }` instead of the management error shape, with the
 * status of the error code (docs/decisions.md §11): 400 bad input or a wrong, expired or used
 * code; 404 signup switched off; 409 address already registered; 429 a wait or a cap; 503 signup
 * state or the mail queue unreachable (nothing created, nothing sent).
 */
export const SIGNUP_DISABLED = 'Sign-up is disabled on this gateway';

export function requireSignupEnabled(deps: EdgeDeps): void {
  if (!deps.config.SIGN_ENABLE) {
    throw new AppError(ErrorCode.NotFound, SIGNUP_DISABLED);
  }
}

/** res.locals flag of routes whose failures are an HTML page (the activation link). */
export const HTML_ERRORS = 'signupHtmlErrors';

function signupStatus(error: AppError, res: Response): number {
  const { status } = toHttp(error.code);
  if (error.code === ErrorCode.Unavailable) {
    res.setHeader('Retry-After', '60');
  }
  return status;
}

/**
 * Every error under /x-sign (bad JSON included) leaves as `{ success: false, message }`, or as
 * the failure page for the activation link. Outages and bugs are logged, never a request body.
 */
export function signupErrorHandler(log: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const known = toAppError(error);
    logServerSide(log, known, 'signup: ');
    const status = signupStatus(known, res);
    if (res.locals[HTML_ERRORS] === true) {
      res
        .status(status)
        .type('html')
        // Signing up again is offered only where sign-up is on.
        .send(activationPage(false, 'Activation failed', known.message, status !== 404));
      return;
    }
    res.status(status).json({ success: false, message: known.message });
  };
}
