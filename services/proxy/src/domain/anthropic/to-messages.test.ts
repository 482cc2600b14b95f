import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_TOKENS, toMessagesRequest } from './to-messages.js';

const user = (content: unknown) => ({ role: 'user', content });

describe('toMessagesRequest', () => {
  it('moves system and developer prompts to system, with the served model and the default max_tokens', () => {
    expect(
      toMessagesRequest(
        {
          model: 'claude',
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'developer', content: [{ type: 'text', text: 'No lists.' }] },
            user('Hi'),
          ],
        },
        'claude-sonnet-4-5',
      ),
    ).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: DEFAULT_MAX_TOKENS,
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'No lists.' },
      ],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    });
  });

  it('carries max_completion_tokens, temperature, top_p, stop, stream and user', () => {
    expect(
      toMessagesRequest(
        {
          model: 'c',
          messages: [user('x')],
          max_completion_tokens: 99,
          max_tokens: 5,
          temperature: 0.2,
          top_p: 0.9,
          stop: 'END',
          stream: true,
          stream_options: { include_usage: true },
          user: 'u-1',
          n: 1,
        },
        'c',
      ),
    ).toMatchObject({
      max_tokens: 99,
      temperature: 0.2,
      top_p: 0.9,
      stop_sequences: ['END'],
      stream: true,
      metadata: { user_id: 'u-1' },
    });
  });

  it('turns data URLs into base64 images and https URLs into URL images', () => {
    const body = toMessagesRequest(
      {
        model: 'c',
        messages: [
          user([
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://img.example/cat.jpg', detail: 'auto' } },
          ]),
        ],
      },
      'c',
    );
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://img.example/cat.jpg' } },
        ],
      },
    ]);
  });

  it('translates tools, tool_choice, tool calls and their results (consecutive results in one user turn)', () => {
    const body = toMessagesRequest(
      {
        model: 'c',
        messages: [
          user('Weather in Oslo and Rome?'),
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
              { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '3°C' },
          { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: '18°C' }] },
        ],
        tools: [
          {
            type: 'function',
            function: {
              name: 'weather',
              description: 'Weather now',
              parameters: { type: 'object', properties: { city: { type: 'string' } } },
            },
          },
        ],
        tool_choice: { type: 'function', function: { name: 'weather' } },
        parallel_tool_calls: false,
      },
      'c',
    );
    expect(body.tools).toEqual([
      {
        name: 'weather',
        description: 'Weather now',
        input_schema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'weather', disable_parallel_tool_use: true });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo and Rome?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Oslo' } },
          { type: 'tool_use', id: 'call_2', name: 'weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: '3°C' },
          { type: 'tool_result', tool_use_id: 'call_2', content: [{ type: 'text', text: '18°C' }] },
        ],
      },
    ]);
  });

  it.each([
    ['auto', { type: 'auto' }],
    ['none', { type: 'none' }],
    ['required', { type: 'any' }],
  ])('maps tool_choice %s', (choice, expected) => {
    expect(
      toMessagesRequest({ model: 'c', messages: [user('x')], tool_choice: choice }, 'c').tool_choice,
    ).toEqual(expected);
  });

  it.each([
    [{ n: 2 }, 'n'],
    [{ logprobs: true }, 'logprobs'],
    [{ top_logprobs: 2 }, 'top_logprobs'],
    [{ seed: 7 }, 'seed'],
    [{ presence_penalty: 0.5 }, 'presence_penalty'],
    [{ response_format: { type: 'json_schema', json_schema: {} } }, 'response_format'],
    [{ audio: { voice: 'alloy' } }, 'audio'],
    [{ modalities: ['text', 'audio'] }, 'modalities'],
    [{ functions: [] }, 'functions'],
    [{ reasoning_effort: 'high' }, 'reasoning_effort'],
    [{ max_tokens: 0 }, 'max_tokens'],
    [{ tools: [{ type: 'web_search' }] }, 'tools[0]'],
    [{ tool_choice: { type: 'allowed_tools' } }, 'tool_choice'],
    [
      { messages: [user([{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }])] },
      'messages[0].content[0].type input_audio',
    ],
    [
      { messages: [user([{ type: 'image_url', image_url: { url: 'http://plain.example/a.png' } }])] },
      'messages[0].content[0].image_url.url',
    ],
    [
      {
        messages: [
          user([{ type: 'image_url', image_url: { url: 'https://a.example/a.png', detail: 'high' } }]),
        ],
      },
      'messages[0].content[0].image_url.detail',
    ],
    [{ messages: [{ role: 'user', content: 'x', name: 'bob' }] }, 'messages[0].name'],
    [{ messages: [{ role: 'function', content: 'x' }] }, 'messages[0].role'],
    [
      {
        messages: [
          {
            role: 'assistant',
            tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '[' } }],
          },
        ],
      },
      'messages[0].tool_calls[0].function.arguments',
    ],
    [{ messages: [] }, 'messages'],
  ])('refuses %j with 400 naming %s', (extra, field) => {
    expect(() => toMessagesRequest({ model: 'c', messages: [user('x')], ...extra }, 'c')).toThrow(
      expect.objectContaining({
        code: 'invalid_request',
        message: expect.stringMatching(new RegExp(`^${field.replace(/[[\]().]/g, '\\$&')}: `)),
      }),
    );
  });
});
