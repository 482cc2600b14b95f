import type { AnswerKind } from '../answer-meter.js';
import { parseJson, SseSplitter, Utf8Stream } from '../sse.js';
import { MessagesToChatStream } from './chat-stream.js';
import { toChatCompletion, toChatError } from './to-chat.js';

/** Rewrites an answer as it is relayed: upstream bytes in, the client's text out. */
export interface AnswerTranslator {
  push(chunk: Buffer | string): string;
  end(): string;
}

/**
 * A Messages answer, as it arrives, in the chat/completions shape: a stream event by event, a
 * JSON body whole at its end (an answer upstream did not send as either is passed on as it came).
 */
export function chatAnswerTranslator(
  kind: AnswerKind,
  options: { model: string; created: number; includeUsage: boolean },
): AnswerTranslator {
  const decoder = new Utf8Stream();
  if (kind === 'sse') {
    const splitter = new SseSplitter();
    const stream = new MessagesToChatStream(options);
    const translate = (data: string) => {
      const value = parseJson(data);
      return value === undefined ? '' : stream.push(value);
    };
    return {
      push: (chunk) =>
        splitter
          .push(typeof chunk === 'string' ? chunk : decoder.write(chunk))
          .map((event) => translate(event.data))
          .join(''),
      end: () => {
        const rest = splitter.flush();
        return (rest ? translate(rest.data) : '') + stream.end();
      },
    };
  }
  if (kind === 'json') {
    let text = '';
    return {
      push: (chunk) => {
        text += typeof chunk === 'string' ? chunk : decoder.write(chunk);
        return '';
      },
      end: () => {
        const body = parseJson(text + decoder.end());
        return JSON.stringify(
          body === undefined
            ? toChatError(undefined, 502)
            : toChatCompletion(body, options.model, options.created),
        );
      },
    };
  }
  return {
    push: (chunk) => (typeof chunk === 'string' ? chunk : decoder.write(chunk)),
    end: () => '',
  };
}

/** An upstream error body (Anthropic's shape) as the client of chat/completions reads it. */
export function chatErrorBody(body: Buffer, status: number): Buffer {
  return Buffer.from(JSON.stringify(toChatError(parseJson(body.toString('utf8')), status)));
}
