import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const PROTO = fileURLToPath(new URL('../../../proto', import.meta.url));
const CONTRACT = fileURLToPath(new URL('../scripts/contract.mjs', import.meta.url));

describe('contract check (buf breaking against proto/baseline.binpb)', () => {
  let scratch: string;

  beforeEach(() => {
    scratch = join(mkdtempSync(join(tmpdir(), 'gw-contract-')), 'proto');
    cpSync(PROTO, scratch, { recursive: true });
  });

  afterEach(() => rmSync(join(scratch, '..'), { recursive: true, force: true }));

  function edit(file: string, change: (text: string) => string): void {
    const path = join(scratch, file);
    const before = readFileSync(path, 'utf8');
    const after = change(before);
    expect(after, `the edit of ${file} changed nothing`).not.toBe(before);
    writeFileSync(path, after);
  }

  function check(): { status: number | null; output: string } {
    const result = spawnSync(process.execPath, [CONTRACT, 'check', scratch], { encoding: 'utf8' });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  }

  it('passes for the contract as committed', () => {
    expect(check().status).toBe(0);
  });

  it('passes when a field and an RPC are added', () => {
    edit('gw/events/v1/events.proto', (text) =>
      text.replace('message AccountChanged {', 'message AccountChanged {\n  string added_later = 999;'),
    );
    edit('gw/news/v1/news.proto', (text) =>
      text.replace(
        'service NewsService {',
        'message PingRequest {}\nmessage PingResponse {}\n\nservice NewsService {\n  rpc Ping(PingRequest) returns (PingResponse);',
      ),
    );
    expect(check().status).toBe(0);
  });

  it('fails naming the field when a field is renumbered', () => {
    edit('gw/events/v1/events.proto', (text) => text.replace('string reason = 2;', 'string reason = 12;'));
    const result = check();
    expect(result.status).not.toBe(0);
    expect(result.output).toContain('"reason"');
    expect(result.output).toContain('npm run contract:release');
  });

  it('fails when an RPC is removed', () => {
    edit('gw/news/v1/news.proto', (text) =>
      text.replace('  rpc ListNews(ListNewsRequest) returns (ListNewsResponse);\n', ''),
    );
    const result = check();
    expect(result.status).not.toBe(0);
    expect(result.output).toContain('ListNews');
  });
});
