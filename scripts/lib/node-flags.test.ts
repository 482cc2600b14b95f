import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ALL_SERVICES } from '../../packages/kit/src/topology.js';
import { nodeFlagsOf } from './node-flags.js';

describe('nodeFlagsOf', () => {
  it('keeps the heap of the processes every AI call runs through, and only theirs', () => {
    const keeping = ALL_SERVICES.filter((name) => nodeFlagsOf(name).includes('--no-memory-reducer'));
    expect(keeping.sort()).toEqual(['accounts', 'billing', 'proxy']);
  });

  it('runs the proxy and billing with V8’s default heap size and the others with the small one', () => {
    const defaultHeap = ALL_SERVICES.filter(
      (name) => !nodeFlagsOf(name).some((flag) => flag.startsWith('--max-semi-space-size')),
    );
    expect(defaultHeap.sort()).toEqual(['billing', 'proxy']);
    for (const name of ALL_SERVICES.filter((service) => !defaultHeap.includes(service))) {
      expect(nodeFlagsOf(name), name).toContain('--max-semi-space-size=2');
    }
  });

  it('gives Node.js only flags it accepts (it refuses to start with one it does not know)', () => {
    for (const name of ALL_SERVICES) {
      const run = spawnSync(process.execPath, [...nodeFlagsOf(name), '-e', ''], { encoding: 'utf8' });
      expect({ name, status: run.status, stderr: run.stderr }).toEqual({ name, status: 0, stderr: '' });
    }
  });
});
