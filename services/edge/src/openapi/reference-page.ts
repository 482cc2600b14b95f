/**
 * The API reference at GET /docs: the OpenAPI document rendered as one static HTML page (no
 * script), grouped by tag, each operation with who may call it, its parameters and its statuses.
 * The welcome mail's Docs link points here.
 */

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
}

interface Operation {
  summary?: string;
  tags?: string[];
  'x-access'?: string;
  parameters?: Parameter[];
  requestBody?: unknown;
  responses?: Record<string, { description?: string }>;
}

export interface OpenApiDocument {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function operationHtml(path: string, method: string, operation: Operation): string {
  const parameters = (operation.parameters ?? [])
    .map(
      (parameter) =>
        `<li><code>${escapeHtml(parameter.name)}</code> (${escapeHtml(parameter.in)}${parameter.required ? ', required' : ''})${
          parameter.description ? `: ${escapeHtml(parameter.description)}` : ''
        }</li>`,
    )
    .join('');
  const statuses = Object.entries(operation.responses ?? {})
    .map(([status, answer]) => `${escapeHtml(status)} ${escapeHtml(answer.description ?? '')}`)
    .join(', ');
  return [
    `<section id="${escapeHtml(`${method}-${path}`)}">`,
    `<h3><code>${method.toUpperCase()} ${escapeHtml(path)}</code></h3>`,
    `<p>${escapeHtml(operation.summary ?? '')}</p>`,
    `<p>Access: ${escapeHtml(operation['x-access'] ?? 'user')}${operation.requestBody ? '; takes a JSON body' : ''}</p>`,
    parameters ? `<ul>${parameters}</ul>` : '',
    `<p>Answers: ${statuses}</p>`,
    '</section>',
  ].join('\n');
}

export function referencePage(document: OpenApiDocument): string {
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) {
        const tag = operation.tags?.[0] ?? 'other';
        byTag.set(tag, [...(byTag.get(tag) ?? []), operationHtml(path, method, operation)]);
      }
    }
  }
  const sections = [...byTag]
    .map(
      ([tag, operations]) => `<h2 id="${escapeHtml(tag)}">${escapeHtml(tag)}</h2>\n${operations.join('\n')}`,
    )
    .join('\n');
  const contents = [...byTag.keys()]
    .map((tag) => `<a href="#${escapeHtml(tag)}">${escapeHtml(tag)}</a>`)
    .join(' · ');
  const { info } = document;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(info.title)}</title></head>
<body style="font-family: sans-serif; max-width: 60rem; margin: auto">
<h1>${escapeHtml(info.title)} ${escapeHtml(info.version)}</h1>
<p>${escapeHtml(info.description ?? '')}</p>
<p>The machine-readable document: <a href="/openapi.json">/openapi.json</a>. ${contents}</p>
${sections}
</body></html>
`;
}
