import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

/**
 * Holds every answer of a documented route to the OpenAPI document (docs/openapi.json, which
 * `npm run check:openapi` keeps equal to what the edge generates and serves): the route and the
 * status must be in it and the body must match that status's schema. An answer from a route the
 * document does not list fails too, except the AI endpoints under /v1.
 */
interface Operation {
  responses: Record<string, { content?: Record<string, unknown> }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

const DOCUMENT_ID = 'openapi.json';
const document = JSON.parse(
  readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8'),
) as OpenApiDocument;
// The document as a schema: response schemas are compiled by JSON pointer into it, so their
// `#/components/...` references resolve; its OpenAPI-only keywords are ignored (strict off).
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(document, DOCUMENT_ID);

// Matched as Express routes them: any letter case, an optional trailing slash; a literal path
// (/x-sign/verify) wins over a template.
const templates = Object.keys(document.paths)
  .map((template) => ({
    template,
    literal: !template.includes('{'),
    pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}/?$`, 'i'),
  }))
  .sort((a, b) => Number(b.literal) - Number(a.literal));

function documentedPath(path: string): string | undefined {
  return templates.find(({ pattern }) => pattern.test(path))?.template;
}

const pointer = (...segments: string[]) =>
  segments.map((segment) => segment.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

const validators = new Map<string, ValidateFunction>();
function validatorFor(...segments: string[]): ValidateFunction {
  const ref = `${DOCUMENT_ID}#/${pointer(...segments)}`;
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  return validate;
}

function isAiEndpoint(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/');
}

/** Throws, naming the mismatch, when `response` to `method path` disagrees with the document. */
export async function checkAgainstDocument(method: string, url: string, response: Response): Promise<void> {
  const path = new URL(url).pathname;
  if (isAiEndpoint(path)) {
    return;
  }
  const verb = method.toLowerCase();
  const where = `${method.toUpperCase()} ${path} → ${response.status}`;
  const template = documentedPath(path);
  const operation = template === undefined ? undefined : document.paths[template]?.[verb];
  if (!template || !operation) {
    throw new Error(`${where}: the route is not in docs/openapi.json`);
  }
  const status = String(response.status);
  const answer = operation.responses[status];
  if (!answer) {
    throw new Error(
      `${where}: docs/openapi.json lists no ${status} answer for ${verb.toUpperCase()} ${template}`,
    );
  }
  if (verb === 'head') {
    return;
  }
  const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
  const mediaType = type === 'application/json' ? 'application/json' : type;
  if (!answer.content?.[mediaType]) {
    throw new Error(
      `${where}: answered ${type || 'no content type'}, documented ${Object.keys(answer.content ?? {}).join(', ')}`,
    );
  }
  if (mediaType !== 'application/json') {
    return;
  }
  const text = await response.clone().text();
  const validate = validatorFor('paths', template, verb, 'responses', status, 'content', mediaType, 'schema');
  if (!validate(JSON.parse(text))) {
    throw new Error(
      `${where}: the body does not match docs/openapi.json: ${ajv.errorsText(validate.errors)}\n${text.slice(0, 2000)}`,
    );
  }
}
