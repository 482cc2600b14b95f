/**
 * Model families of well-known providers, for the LEVEL_MAPPER auto-completion after a key is
 * added. Matching: the Provider's host exactly (or a subdomain of a known host), else the first
 * provider whose name or alias appears in the host (a relay such as `openai-relay.example.com`).
 */
interface ProviderFamilies {
  hosts: readonly string[];
  names: readonly string[];
  families: readonly string[];
}

const CATALOG: readonly ProviderFamilies[] = [
  {
    hosts: ['api.openai.com'],
    names: ['openai'],
    families: [
      'gpt-4o*',
      'gpt-4.1*',
      'gpt-4*',
      'gpt-3.5*',
      'o1*',
      'o3*',
      'o4*',
      'text-embedding-*',
      'dall-e-*',
      'whisper-*',
      'tts-*',
    ],
  },
  { hosts: ['api.anthropic.com'], names: ['anthropic', 'claude'], families: ['claude*'] },
  { hosts: ['generativelanguage.googleapis.com'], names: ['gemini', 'googleapis'], families: ['gemini*'] },
  { hosts: ['api.deepseek.com'], names: ['deepseek'], families: ['deepseek*'] },
  { hosts: ['api.mistral.ai'], names: ['mistral'], families: ['mistral*', 'codestral*', 'pixtral*'] },
  { hosts: ['api.x.ai'], names: ['xai', 'grok'], families: ['grok*'] },
  {
    hosts: ['dashscope.aliyuncs.com', 'dashscope-intl.aliyuncs.com'],
    names: ['dashscope', 'qwen'],
    families: ['qwen*'],
  },
  {
    hosts: ['api.moonshot.cn', 'api.moonshot.ai'],
    names: ['moonshot', 'kimi'],
    families: ['moonshot*', 'kimi*'],
  },
  { hosts: ['api.groq.com'], names: ['groq'], families: ['llama*', 'mixtral*', 'gemma*'] },
  {
    hosts: ['api.cohere.ai', 'api.cohere.com'],
    names: ['cohere'],
    families: ['command*', 'embed-*', 'rerank-*'],
  },
];

function hostOf(provider: string): string | undefined {
  if (!URL.canParse(provider)) {
    return undefined;
  }
  return new URL(provider).hostname.toLowerCase().replace(/\.+$/, '');
}

/** The families a Provider URL serves, or [] when it is not recognised. */
export function modelFamiliesFor(provider: string): readonly string[] {
  const host = hostOf(provider);
  if (!host) {
    return [];
  }
  const exact = CATALOG.find((entry) =>
    entry.hosts.some((known) => host === known || host.endsWith(`.${known}`)),
  );
  if (exact) {
    return exact.families;
  }
  const labels = host.split(/[.-]/);
  const similar = CATALOG.find((entry) =>
    entry.names.some((name) => labels.includes(name) || host.includes(name)),
  );
  return similar?.families ?? [];
}
