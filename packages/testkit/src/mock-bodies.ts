import busboy from 'busboy';

/** A JSON object body, or `{ raw }` when the body is not one. */
export function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { raw: text };
  } catch {
    return { raw: text };
  }
}

/** Fields as strings (repeated names as arrays), files as `{ filename, size }`. */
export function parseMultipart(contentType: string, body: Buffer): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const fields: Record<string, unknown> = {};
    const add = (name: string, value: unknown) => {
      const seen = fields[name];
      fields[name] =
        seen === undefined ? value : [...(Array.isArray(seen) ? (seen as unknown[]) : [seen]), value];
    };
    const form = busboy({ headers: { 'content-type': contentType } });
    form.on('field', (name, value) => add(name, value));
    form.on('file', (name, file, info) => {
      let size = 0;
      file.on('data', (chunk: Buffer) => (size += chunk.length));
      file.on('end', () => add(name, { filename: info.filename, size }));
    });
    form.on('close', () => resolve(fields));
    form.on('error', () => resolve({ unreadable: true }));
    form.end(body);
  });
}
