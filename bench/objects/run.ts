/**
 * What building one object costs on this Node.js, by how it is built: named field by field (the
 * baseline), or from a spread with fields the source lacks (V8's slow path on Node 20, which the
 * per-call code avoids: CONTRIBUTING.md, "Objects on the per-call path"). The shapes are like the
 * proxy's own: a call (four fields here), a call's access-line details, the upstream request's
 * headers. Written to bench/RESULTS.md as ns per object and as a ratio to the baseline,
 * both measured in this run.
 *
 *   node --import tsx bench/objects/run.ts [objects=1000000]
 */
import { out, writeResultsSection } from '../gateway.js';

const OBJECTS = Number(process.argv[2] ?? 1_000_000);
const HEADING = '## Building objects on the per-call path (bench/objects)';

const call = { endpoint: {}, caller: {}, pool: {}, requestId: 'req' };
const base = { endpoint: {}, size: 1, json: undefined, model: '', stream: false, injectUsage: false };
const forwarded = { accept: '*/*', 'user-agent': 'bench', 'accept-encoding': 'identity' };
const auth = { authorization: 'Bearer sk-bench' };

/** Access-line details as calls leave them: three shapes (a key or not, a Level or not). */
const details = Array.from({ length: 3 }, (_, i) => {
  const value: Record<string, unknown> = { route: '/v1/chat/completions' };
  value.accountId = '42';
  if (i > 0) {
    value.keyId = '7';
  }
  if (i > 1) {
    value.keyLevel = 1;
  }
  return value;
});

/** Each way of building, returning the object so the engine cannot drop the work. */
const WAYS: Array<{ name: string; build: (i: number) => object }> = [
  {
    name: 'a call plus one field, named field by field (baseline)',
    build: () => ({
      endpoint: call.endpoint,
      caller: call.caller,
      pool: call.pool,
      requestId: call.requestId,
      request: 1,
    }),
  },
  { name: '`{ ...call }`: a copy, no new field', build: () => ({ ...call }) },
  { name: '`{ request, ...call }`: the new field first', build: () => ({ request: 1, ...call }) },
  { name: '`Object.assign({}, call, { request })`', build: () => Object.assign({}, call, { request: 1 }) },
  { name: '`{ ...call, request }`: a new field after the spread', build: () => ({ ...call, request: 1 }) },
  {
    name: '`{ ...call, +7 fields }`: the admitted call as it was built, in shape',
    build: () => ({
      ...call,
      request: 1,
      windows: 2,
      admittedAt: 3,
      state: 4,
      plan: 5,
      limitWindows: 6,
      reservation: undefined,
    }),
  },
  {
    name: '`{ ...details, +4 fields }`: the access line as it was built',
    build: (i) => ({ ...details[i % 3], method: 'POST', status: 200, durationMs: 1.5, requestId: 'req' }),
  },
  {
    name: '`{ ...base, json, model, stream }`: fields the source has',
    build: () => ({ ...base, json: {}, model: 'm', stream: true }),
  },
  { name: '`{ ...forwarded, ...auth }`: headers', build: () => ({ ...forwarded, ...auth }) },
  {
    name: 'the same headers copied name by name',
    build: () => {
      const headers: Record<string, string> = {};
      for (const from of [forwarded, auth] as Array<Record<string, string>>) {
        for (const name of Object.keys(from)) {
          headers[name] = from[name] as string;
        }
      }
      return headers;
    },
  },
];

function nsPerObject(build: (i: number) => object): number {
  let kept = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < OBJECTS; i += 1) {
    kept += Object.keys(build(i)).length > 0 ? 1 : 0;
  }
  const elapsed = Number(process.hrtime.bigint() - started);
  if (kept !== OBJECTS) {
    throw new Error('an object went missing');
  }
  return elapsed / OBJECTS;
}

function main() {
  // A first pass warms every way up (the JIT), the second is the one reported.
  for (const way of WAYS) {
    nsPerObject(way.build);
  }
  const measured = WAYS.map((way) => ({ name: way.name, ns: nsPerObject(way.build) }));
  const baseline = measured[0]?.ns ?? 1;
  const rows = measured.map(
    ({ name, ns }) => `| ${name} | ${ns.toFixed(0)} | ${(ns / baseline).toFixed(1)}× |`,
  );
  const section = `${HEADING}

What one object costs by how it is built, on this machine's Node.js (${process.version}), ${OBJECTS.toLocaleString('en')} objects
each after a warm-up pass; the baseline names every field. Run: \`node --import tsx bench/objects/run.ts\`
(${new Date().toISOString().slice(0, 10)}).

| how the object is built | ns per object | vs the baseline |
|---|---|---|
${rows.join('\n')}
`;
  out(section);
  writeResultsSection(HEADING, section);
}

main();
