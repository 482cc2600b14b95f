import type { z } from 'zod';

/**
 * A service's README follows one template: these sections, in this order, and nothing else at
 * the second level. Configuration is last and holds the variables' table, generated from the
 * service's env schema (`configShape` in src/config.ts) between the markers.
 */
export const README_SECTIONS = ['Owns', 'Serves', 'Publishes and consumes', 'Configuration'] as const;
export const CONFIG_START = '<!-- config:start -->';
export const CONFIG_END = '<!-- config:end -->';

export interface ConfigVariable {
  name: string;
  /** The default as written in the environment, or how the variable is needed when it has none. */
  fallback: string;
  description: string;
}

/** The raw default of an env schema (before its transforms), if it has one: env values are text. */
function defaultOf(schema: z.ZodType): string | undefined {
  const def = schema._zod.def;
  if (def.type === 'default') {
    return String((def as z.core.$ZodDefaultDef).defaultValue);
  }
  if (def.type === 'pipe') {
    return defaultOf((def as z.core.$ZodPipeDef).in as z.ZodType);
  }
  return undefined;
}

/** Every variable of an env schema, in its order; throws naming those without a description. */
export function configVariables(shape: Readonly<Record<string, z.ZodType>>): ConfigVariable[] {
  const undescribed = Object.entries(shape)
    .filter(([, schema]) => !schema.description)
    .map(([name]) => name);
  if (undescribed.length > 0) {
    throw new Error(
      `variables without a description (add .describe() in config.ts): ${undescribed.join(', ')}`,
    );
  }
  return Object.entries(shape).map(([name, schema]) => {
    const fallback = defaultOf(schema);
    return {
      name,
      fallback:
        fallback === undefined
          ? schema.safeParse(undefined).success
            ? 'unset'
            : 'required'
          : fallback === ''
            ? 'empty'
            : `\`${fallback}\``,
      description: schema.description ?? '',
    };
  });
}

/** The variables as a Markdown table (`|` in a description escaped). */
export function configTable(variables: readonly ConfigVariable[]): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  return [
    '| Variable | Default | Description |',
    '| --- | --- | --- |',
    ...variables.map(
      (variable) => `| \`${variable.name}\` | ${cell(variable.fallback)} | ${cell(variable.description)} |`,
    ),
  ].join('\n');
}

/** What keeps a README from following the template (its `##` sections and the markers). */
export function templateProblems(readme: string): string[] {
  const sections = [...readme.matchAll(/^## (.+)$/gm)].map((match) => (match[1] ?? '').trim());
  const problems: string[] = [];
  if (sections.join('\n') !== README_SECTIONS.join('\n')) {
    problems.push(`sections are [${sections.join(', ')}], want [${README_SECTIONS.join(', ')}]`);
  }
  const start = readme.indexOf(CONFIG_START);
  const end = readme.indexOf(CONFIG_END);
  if (start < 0 || end < start || start < readme.indexOf('## Configuration')) {
    problems.push(`Configuration holds no ${CONFIG_START} … ${CONFIG_END} block`);
  }
  return problems;
}

/** The README with the block between the markers replaced by the table. */
export function withConfigTable(readme: string, table: string): string {
  const start = readme.indexOf(CONFIG_START) + CONFIG_START.length;
  const end = readme.indexOf(CONFIG_END);
  return `${readme.slice(0, start)}\n\n${table}\n\n${readme.slice(end)}`;
}
