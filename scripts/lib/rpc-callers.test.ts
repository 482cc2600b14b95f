import { describe, expect, it } from 'vitest';
import { checkRpcCallers, clientMethod, rpcsOf, uncalledRpcs } from './rpc-callers.js';

const PROTO = `syntax = "proto3";
package gw.demo.v1;
// rpc Commented(A) returns (B);
service DemoService {
  rpc GetThing(GetThingRequest) returns (GetThingResponse);
  /* rpc AlsoCommented(A) returns (B); */
  rpc ListThings (ListThingsRequest) returns (ListThingsResponse);
}
service OtherService {
  rpc PingOther(PingRequest) returns (PingResponse);
}`;

const rpcs = rpcsOf('proto/gw/demo/v1/demo.proto', PROTO);
const caller = (text: string) => ({ path: 'services/edge/src/caller.ts', text });

describe('rpcsOf', () => {
  it('lists every rpc of every service, skipping commented ones', () => {
    expect(rpcs.map((rpc) => `${rpc.service}.${rpc.name}`)).toEqual([
      'DemoService.GetThing',
      'DemoService.ListThings',
      'OtherService.PingOther',
    ]);
  });
});

describe('clientMethod', () => {
  it('names the ts-proto client method', () => {
    expect(clientMethod('GetThing')).toBe('getThing');
  });
});

describe('uncalledRpcs', () => {
  it('fails an RPC whose client method nothing calls', () => {
    const sources = [caller('await deps.demo.getThing({ id }); await other?.pingOther({});')];
    expect(uncalledRpcs(rpcs, sources).map((rpc) => rpc.name)).toEqual(['ListThings']);
  });

  it('does not count a handler or a same-named function as a call', () => {
    const sources = [caller('const handlers = { listThings: async () => listThings(deps) };')];
    expect(uncalledRpcs(rpcs, sources).map((rpc) => rpc.name)).toEqual([
      'GetThing',
      'ListThings',
      'PingOther',
    ]);
  });
});

describe('checkRpcCallers', () => {
  const sources = [caller('deps.demo.getThing({}); deps.other.pingOther({});')];

  it('excuses an allowed RPC and reports the rest', () => {
    expect(checkRpcCallers(rpcs, sources, {})).toEqual({ uncalled: [rpcs[1]], staleAllowances: [] });
    expect(checkRpcCallers(rpcs, sources, { 'DemoService.ListThings': 'why' })).toEqual({
      uncalled: [],
      staleAllowances: [],
    });
  });

  it('reports an allowance for an RPC that is called or gone', () => {
    const allowed = {
      'DemoService.GetThing': 'called now',
      'DemoService.Gone': 'removed',
      'DemoService.ListThings': 'x',
    };
    expect(checkRpcCallers(rpcs, sources, allowed).staleAllowances).toEqual([
      'DemoService.GetThing',
      'DemoService.Gone',
    ]);
  });
});
