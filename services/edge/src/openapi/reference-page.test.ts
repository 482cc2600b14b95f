import { describe, expect, it } from 'vitest';
import { ROUTES } from '../routes.js';
import { buildOpenApiDocument } from './document.js';
import { referencePage, type OpenApiDocument } from './reference-page.js';

describe('referencePage', () => {
  it('renders every operation of the document, escaped, with no script', () => {
    const page = referencePage(buildOpenApiDocument(ROUTES) as unknown as OpenApiDocument);
    expect(page).toContain('<code>GET /x-info</code>');
    expect(page).toContain('<code>user</code> (query, required)');
    expect(page).toContain('<code>GET /docs</code>');
    expect(page).not.toMatch(/<script/i);
    expect(referencePage({ info: { title: '<b>', version: '1' }, paths: {} })).toContain('&#60;b&#62;');
  });
});
