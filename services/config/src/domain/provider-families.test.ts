import { describe, expect, it } from 'vitest';
import { modelFamiliesFor } from './provider-families.js';

describe('provider model families', () => {
  it('matches known hosts exactly, subdomains and similar names', () => {
    expect(modelFamiliesFor('https://api.openai.com/v1')).toContain('gpt-4o*');
    expect(modelFamiliesFor('https://API.Anthropic.com')).toEqual(['claude*']);
    expect(modelFamiliesFor('https://eu.api.openai.com')).toContain('o1*');
    expect(modelFamiliesFor('https://my-claude-relay.example.com')).toEqual(['claude*']);
    expect(modelFamiliesFor('https://deepseek.internal.example.net/v1')).toEqual(['deepseek*']);
    expect(modelFamiliesFor('https://llm.example.com')).toEqual([]);
    expect(modelFamiliesFor('not a url')).toEqual([]);
  });
});
