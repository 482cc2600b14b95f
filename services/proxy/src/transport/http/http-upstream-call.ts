import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { UPSTREAM_KEY_HEADER, UPSTREAM_LEVEL_HEADER } from '@gw/kit';
import { upstreamPolicy, type ProxyDeps } from '../../deps.js';
import type { AdmittedCall, ServedBy, UpstreamCall } from '../../domain/call/call.js';
import { classifyStatus, FailureClass, parseRetryAfter } from '../../domain/key-health.js';
import { forwardableRequestHeaders, upstreamTarget } from '../../domain/providers.js';
import { upstreamBody } from '../../domain/request.js';
import { observeUpstream } from '../upstream/metrics.js';
import { ClientState, readErrorBody, relayAnswer, relayError } from './answer.js';

interface HttpAnswer {
  response: IncomingMessage;
  abort(): void;
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

  const nameUpstream = ({ key, step }: ServedBy) => {
    // For the edge's access line (it removes both headers before the client sees the answer).
    res.setHeader(UPSTREAM_KEY_HEADER, key.id);
    res.setHeader(UPSTREAM_LEVEL_HEADER, String(step.level));
  };

  return {
    clientGone: () => client.isGone(),

    async attempt(served) {
      const { key, step } = served;
      const target = upstreamTarget(key, call.endpoint.path, '', step.model, deps.providers.defaults);
      if (target.needsAccessToken) {
        try {
          target.headers.authorization = `Bearer ${await deps.providers.accessToken(key)}`;
        } catch (error) {
          return { kind: 'failed', failure: FailureClass.Auth, error };
        }
      }
      const cancel = new AbortController();
      let grace: NodeJS.Timeout | undefined;
      const stopWatching = client.whenGone(() => {
        grace = setTimeout(() => cancel.abort(), deps.config.PROXY_USAGE_GRACE_MS);
      });
      const { body, contentType: bodyType } = upstreamBody(call.request, step.model);
      const sentAt = performance.now();
      const attempt = await deps.upstream.send(
        {
          ...target,
          method: call.endpoint.method,
          body,
          extraHeaders: bodyType ? { ...extraHeaders, 'content-type': bodyType } : extraHeaders,
        },
        timeoutMs,
        cancel.signal,
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
      const status = attempt.response.statusCode ?? 502;
      if (status < 400) {
        observeUpstream(key.id, step.level, 'ok', sentAt);
        nameUpstream(served);
        return { kind: 'served', answer: attempt };
      }
      const errorBody = await readErrorBody(attempt.response);
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
        nameUpstream(served);
        relayError(res, attempt.response, errorBody);
      }
      return { kind: 'answered' };
    },

    async serve(answer, _served, meter) {
      const relayed = await relayAnswer(
        {
          idleMs: deps.config.PROXY_STREAM_IDLE_MS,
          usageGraceMs: deps.config.PROXY_USAGE_GRACE_MS,
          hideUsageChunk: call.request.injectUsage,
          log: call.log,
        },
        answer.response,
        () => answer.abort(),
        res,
        client,
      );
      await meter.answered(relayed, answer.response.statusCode ?? 502);
    },
  };
}
