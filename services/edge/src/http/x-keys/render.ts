import { keyConfigObject } from '@gw/kit';
import type { keypool } from '@gw/proto';
import type { Response } from 'express';

function configOf(key: keypool.ProviderKey): Record<string, unknown> {
  if (key.config) {
    return keyConfigObject(key.config);
  }
  // A keypool that predates config sends only the JSON (docs/adr/0006-typed-contract-fields.md).
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  return JSON.parse(key.configJson || '{}') as Record<string, unknown>;
}

/** The spec's key record (PascalCase); SecretKey is already masked by the keypool. */
export function keyRecord(key: keypool.ProviderKey) {
  return {
    ID: Number(key.id),
    Name: key.name,
    Level: key.level,
    Provider: key.provider,
    SecretKey: key.secretKey,
    Status: key.status,
    Config: configOf(key),
    CreatedAt: key.createdAt,
    UpdatedAt: key.updatedAt,
  };
}

/** `{ success, keys }` with the pagination headers of the other variant. */
export function sendKeyPage(res: Response, page: keypool.ListKeysResponse): void {
  const total = Number(page.total);
  res.setHeader('X-Total-Count', String(total));
  res.setHeader('X-Page', String(page.page));
  res.setHeader('X-Per-Page', String(page.size));
  res.setHeader('X-Total-Pages', String(Math.ceil(total / Math.max(page.size, 1))));
  res.json({ success: true, keys: page.keys.map(keyRecord) });
}
