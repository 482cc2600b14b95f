import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { AppError } from '@gw/kit';
import { upstreamPolicy, type ProxyDeps } from '../../deps.js';
import type { AdmittedCall } from '../../domain/call/call.js';
import type { UpstreamCall } from '../../domain/ports/upstream-call.js';
import { classifyStatus, FailureClass, parseRetryAfter } from '../../domain/key-health.js';
import { forwardableRequestHeaders, upstreamTarget } from '../../domain/providers.js';
import { upstreamBody } from '../../domain/request.js';
import { chatAnswerTranslator, chatErrorBody } from '../../domain/anthropic/chat-answer.js';
import { servingOf } from '../../domain/anthropic/serving.js';
import { toMessagesRequest } from '../../domain/anthropic/to-messages.js';
import { Cancellation } from '../upstream/cancellation.js';
import { observeUpstream } from '../upstream/metrics.js';
import type { UpstreamResponse } from '../upstream/upstream-exchange.js';
import { ClientState, readErrorBody, relayAnswer, relayError } from './answer.js';

interface HttpAnswer {
  response: UpstreamResponse;
  abort(): void;
  /** Served as an Anthropic Messages call for a chat/completions client: translated back. */
  translated: boolean;
}

/**
 * The pipeline's upstream port over HTTP: one request per attempt to the key's target, the
 * answer streamed back to the client as it arrives. A client that leaves during an attempt does
 * not cancel a call upstream would bill anyway: it runs on, bounded by the usage grace, and is
 * charged (docs/decisions.md §2).
 */
export function httpUpstreamCall(
  deps: ProxyDeps,
  call: AdmittedCall,
  exchange: { req: IncomingMessage; res: ServerResponse },
): UpstreamCall<HttpAnswer> {
  const { res } = exchange;
  const client = new ClientState(res);
  const extraHeaders = forwardableRequestHeaders(exchange.req.headers);
  const timeoutMs = call.request.stream
    ? deps.config.PROXY_UPSTREAM_TIMEOUT_MS
    : deps.config.PROXY_ANSWER_TIMEOUT_MS;
  const policy = upstreamPolicy(deps, call.pool);

  /**
   * The Messages request for a chat/completions call. What cannot be translated is the client's
   * mistake: refused with 400, and the call taken back from its windows like any refusal.
   */
  const messagesBody = (model: string) => {
    try {
      const body = toMessagesRequest(call.request.json ?? {}, model);
      return { body: Buffer.from(JSON.stringify(body)), contentType: 'application/json' };
    } catch (error) {
      if (error instanceof AppError) {
        void deps.limiter.refund(call.windows, call.admittedAt);
      }
      throw error;
    }
  };

  return {
    clientGone: () => client.isGone(),

    async attempt(served) {
      const { key, step } = served;
      const serving = servingOf(call.endpoint, key);
      if (serving.kind === 'unservable') {
        return { kind: 'skipped', reason: serving.reason };
      }
      const translated = serving.kind === 'translated';
      const target = upstreamTarget(key, serving.path, '', step.model, deps.providers.defaults, extraHeaders);
      if (target.needsAccessToken) {
        try {
          target.headers.authorization = `Bearer ${await deps.providers.accessToken(key)}`;
        } catch (error) {
          return { kind: 'failed', failure: FailureClass.Auth, error };
        }
      }
      const { body, contentType: bodyType } = translated
        ? messagesBody(step.model)
        : upstreamBody(call.request, step.model);
      const cancel = new Cancellation();
      let grace: NodeJS.Timeout | undefined;
      const stopWatching = client.whenGone(() => {
        grace = setTimeout(() => cancel.cancel(), deps.config.PROXY_USAGE_GRACE_MS);
      });
      const sentAt = performance.now();
      const attempt = await deps.upstream.send(
        {
          url: target.url,
          headers: target.headers,
          method: call.endpoint.method,
          body,
          contentType: bodyType,
          extraHeaders,
        },
        timeoutMs,
        cancel,
        policy,
      );
      stopWatching();
      clearTimeout(grace);
      if (!attempt.ok) {
        observeUpstream(key.id, step.level, attempt.failure, sentAt);
        return client.isGone()
          ? { kind: 'client_left' }
          : { kind: 'failed', failure: attempt.failure, error: attempt.error };
      }
      const status = attempt.response.statusCode;
      if (status < 400) {
        observeUpstream(key.id, step.level, 'ok', sentAt);
        return { kind: 'served', answer: { response: attempt.response, abort: attempt.abort, translated } };
      }
      const errorBody = await readErrorBody(attempt.response.body);
      const outcome = classifyStatus(status, errorBody.toString('utf8'));
      observeUpstream(key.id, step.level, outcome.kind === 'failure' ? outcome.class : outcome.kind, sentAt);
      if (outcome.kind === 'failure') {
        return {
          kind: 'failed',
          failure: outcome.class,
          status,
          retryAfterMs: parseRetryAfter(attempt.response.headers['retry-after'], Date.now()),
        };
      }
      // The client's own mistake: relayed, never anyone's failure.
      if (!client.isGone()) {
        relayError(res, attempt.response, translated ? chatErrorBody(errorBody, status) : errorBody);
      }
      return { kind: 'answered' };
    },

    async serve(answer, served, meter) {
      const relayed = await relayAnswer(
        {
          idleMs: deps.config.PROXY_STREAM_IDLE_MS,
          usageGraceMs: deps.config.PROXY_USAGE_GRACE_MS,
          hideUsageChunk: call.request.injectUsage && !answer.translated,
          translate: answer.translated
            ? (kind) =>
                chatAnswerTranslator(kind, {
                  model: served.step.model,
                  created: Math.floor(Date.now() / 1000),
                  includeUsage: call.request.stream && !call.request.injectUsage,
                })
            : undefined,
          log: call.log,
        },
        answer.response,
        () => answer.abort(),
        res,
        client,
      );
      await meter.answered(relayed, answer.response.statusCode);
    },
  };
}
