import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import {
  CONFIG_END,
  CONFIG_START,
  configTable,
  configVariables,
  templateProblems,
  withConfigTable,
} from './service-readme.js';

const shape = {
  PORT: z.string().default('8080').transform(Number).describe('The HTTP port.'),
  PREFIX: z.string().default('').describe('Key prefix | empty: none.'),
  TOKEN: z.string().min(16).describe('Shared secret.'),
  URL: z.string().optional().describe('Where to send.'),
};

const readme = (configuration: string) =>
  [
    '# demo',
    '## Owns',
    'a',
    '## Serves',
    'b',
    '## Publishes and consumes',
    'c',
    '## Configuration',
    configuration,
  ].join('\n\n');

describe('configVariables', () => {
  it('reads name, raw default (before transforms) or how it is needed, and description in schema order', () => {
    expect(configVariables(shape)).toEqual([
      { name: 'PORT', fallback: '`8080`', description: 'The HTTP port.' },
      { name: 'PREFIX', fallback: 'empty', description: 'Key prefix | empty: none.' },
      { name: 'TOKEN', fallback: 'required', description: 'Shared secret.' },
      { name: 'URL', fallback: 'unset', description: 'Where to send.' },
    ]);
  });

  it('refuses a variable without a description, naming it', () => {
    expect(() => configVariables({ ...shape, BARE: z.string().default('x') })).toThrow(/BARE/);
  });
});

describe('configTable', () => {
  it('writes one row per variable, escaping | in cells', () => {
    expect(configTable(configVariables({ PREFIX: shape.PREFIX }))).toBe(
      [
        '| Variable | Default | Description |',
        '| --- | --- | --- |',
        '| `PREFIX` | empty | Key prefix \\| empty: none. |',
      ].join('\n'),
    );
  });
});

describe('templateProblems', () => {
  it('accepts the four sections in order with the markers in Configuration', () => {
    expect(templateProblems(readme(`${CONFIG_START}\n${CONFIG_END}`))).toEqual([]);
  });

  it('names sections missing, extra or out of order', () => {
    const shuffled = readme(`${CONFIG_START}\n${CONFIG_END}`).replace('## Serves', '## Tests');
    expect(templateProblems(shuffled)).toEqual([
      'sections are [Owns, Tests, Publishes and consumes, Configuration], want [Owns, Serves, Publishes and consumes, Configuration]',
    ]);
  });

  it('fails a README without the generated block', () => {
    expect(templateProblems(readme('- `PORT`: the port'))).toHaveLength(1);
  });
});

describe('withConfigTable', () => {
  it('replaces what is between the markers and keeps the rest', () => {
    const stale = readme(`Before.\n\n${CONFIG_START}\nold table\n${CONFIG_END}\n`);
    const fresh = withConfigTable(stale, 'new table');
    expect(fresh).toContain(`Before.\n\n${CONFIG_START}\n\nnew table\n\n${CONFIG_END}\n`);
    expect(fresh).not.toContain('old table');
    expect(withConfigTable(fresh, 'new table')).toBe(fresh);
  });
});
