import { randomBytes } from 'node:crypto';
import { AppError, ErrorCode } from '@gw/kit';
import busboy from 'busboy';

/** One part of a multipart upload as the proxy read it: what it checks and what it forwards. */
export interface FormPart {
  name: string;
  data: Buffer;
  filename?: string;
  mimeType?: string;
}

const invalid = (message: string) => new AppError(ErrorCode.InvalidRequest, message);

/**
 * The parameter names of a header value (`form-data; name="a"; filename="b"` → name, filename),
 * lower case, a trailing `*` (RFC 2231's extended form) folded onto the plain name; quoted
 * strings are skipped whole, so a `;` inside one splits nothing.
 */
function parameterNames(value: string): string[] {
  const names: string[] = [];
  let inQuotes = false;
  let escaped = false;
  let segment = '';
  const take = () => {
    const equals = segment.indexOf('=');
    if (equals > 0) {
      names.push(segment.slice(0, equals).trim().toLowerCase().replace(/\*$/, ''));
    }
    segment = '';
  };
  for (const char of value) {
    if (inQuotes) {
      if (escaped) {
        escaped = false;
      } else if (char === '\\') {
        escaped = true;
      } else if (char === '"') {
        inQuotes = false;
      }
    } else if (char === '"') {
      inQuotes = true;
    } else if (char === ';') {
      take();
    } else {
      segment += char;
    }
  }
  take();
  return names;
}

/**
 * Readers disagree on a parameter given twice (busboy keeps the first, python-multipart the last
 * `name`, Werkzeug the last `boundary`): such a header is refused, never guessed at.
 */
function assertParametersOnce(value: string, where: string): void {
  const seen = new Set<string>();
  for (const name of parameterNames(value)) {
    if (seen.has(name)) {
      throw invalid(`${where}: the parameter ${name} is given more than once`);
    }
    seen.add(name);
  }
}

/** The part headers of a multipart body (each part's block up to its blank line), as text. */
function partHeaderBlocks(raw: Buffer, boundary: string): string[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const blocks: string[] = [];
  let at = raw.indexOf(delimiter);
  while (at >= 0) {
    const after = at + delimiter.length;
    if (raw.subarray(after, after + 2).toString('latin1') === '--') {
      break;
    }
    const start = raw.indexOf('\r\n', after);
    const end = start < 0 ? -1 : raw.indexOf('\r\n\r\n', start);
    if (end < 0) {
      break;
    }
    blocks.push(raw.subarray(start + 2, end).toString('latin1'));
    at = raw.indexOf(Buffer.from(`\r\n--${boundary}`), end + 4);
    at = at < 0 ? -1 : at + 2;
  }
  return blocks;
}

/**
 * Refuses what two readers could read differently: a parameter twice in the body's
 * Content-Type (`boundary`) or in a part's Content-Disposition or Content-Type (`name`), or a
 * part with either header twice. Answers the boundary.
 */
function assertUnambiguous(contentType: string, raw: Buffer): void {
  assertParametersOnce(contentType, 'Content-Type');
  const boundary = /;\s*boundary\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(contentType);
  const value = boundary?.[1] ?? boundary?.[2];
  if (!value) {
    throw invalid('the multipart body has no boundary');
  }
  for (const block of partHeaderBlocks(raw, value)) {
    const seen = new Set<string>();
    for (const line of block.split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      if (name !== 'content-disposition' && name !== 'content-type') {
        continue;
      }
      if (seen.has(name)) {
        throw invalid(`a multipart part gives ${name} more than once`);
      }
      seen.add(name);
      assertParametersOnce(line.slice(colon + 1), `a multipart part's ${name}`);
    }
  }
}

/**
 * Parts of a multipart body, in order. The body is first checked for what readers disagree on;
 * then read once, and only what was read goes upstream (`buildForm`), never the client's bytes.
 */
export function readForm(contentType: string, raw: Buffer): Promise<FormPart[]> {
  assertUnambiguous(contentType, raw);
  return new Promise((resolve, reject) => {
    const parts: FormPart[] = [];
    let form: busboy.Busboy;
    try {
      form = busboy({
        headers: { 'content-type': contentType },
        limits: { fieldSize: raw.length },
        // Filenames are written back as UTF-8: read them as UTF-8 (busboy's default is latin1).
        defParamCharset: 'utf8',
      });
    } catch {
      reject(invalid('the multipart body has no boundary'));
      return;
    }
    form.on('field', (name, value, info) => {
      parts.push({ name, data: Buffer.from(value, 'utf8'), mimeType: info.mimeType });
    });
    form.on('file', (name, file, info) => {
      const chunks: Buffer[] = [];
      file.on('data', (chunk: Buffer) => chunks.push(chunk));
      file.on('end', () => {
        // One chunk is a view into the body: kept as is, an upload is held once, not twice.
        const data = chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks);
        parts.push({ name, data, filename: info.filename, mimeType: info.mimeType });
      });
    });
    form.on('close', () => resolve(parts));
    form.on('error', () => reject(invalid('the multipart body could not be read')));
    form.end(raw);
  });
}

/**
 * A multipart body built from parts, as chunks to write in order (an uploaded file is never
 * copied); quotes in names are percent-encoded as browsers do.
 */
export function buildForm(parts: FormPart[]): { body: Buffer[]; contentType: string } {
  const boundary = `gw-${randomBytes(16).toString('hex')}`;
  const quoted = (text: string) => `"${text.replaceAll('"', '%22').replace(/[\r\n]/g, ' ')}"`;
  const body: Buffer[] = [];
  for (const part of parts) {
    const filename = part.filename === undefined ? '' : `; filename=${quoted(part.filename)}`;
    const type = part.filename !== undefined && part.mimeType ? `Content-Type: ${part.mimeType}\r\n` : '';
    body.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(part.name)}${filename}\r\n${type}\r\n`,
      ),
      part.data,
      Buffer.from('\r\n'),
    );
  }
  body.push(Buffer.from(`--${boundary}--\r\n`));
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}
