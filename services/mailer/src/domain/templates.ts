import { formatUsd } from '@gw/kit';

/** A rendered message: a text part and an HTML part saying the same. */
export interface Rendered {
  subject: string;
  text: string;
  html: string;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** Paragraphs (and `label: url` link lines) into both parts. */
function compose(subject: string, paragraphs: string[], links: Array<[string, string]> = []): Rendered {
  const text = [...paragraphs, ...links.map(([label, url]) => `${label}: ${url}`)].join('\n\n');
  const body = [
    ...paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`),
    ...links.map(
      ([label, url]) => `<p>${escapeHtml(label)}: <a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p>`,
    ),
  ].join('\n');
  const html = `<!doctype html>\n<html><body style="font-family: sans-serif">\n${body}\n</body></html>\n`;
  return { subject, text: `${text}\n`, html };
}

export function verificationMail(code: string, activateUrl: string): Rendered {
  return compose(
    'Your verification code',
    [
      `Your verification code is ${code}. It is valid for 10 minutes and can be used once.`,
      'Enter it where you signed up, or open the link below to activate your account directly.',
      'If you did not ask for this, ignore this message: no account is created without the code.',
    ],
    [['Activate', activateUrl]],
  );
}

export function welcomeMail(
  name: string,
  secretKey: string,
  urls: { service: string; docs: string; api: string; manage: string },
): Rendered {
  return compose(
    'Your account is ready',
    [
      `Welcome, ${name}. Your account is ready.`,
      `Your API key (SecretKey) is: ${secretKey}`,
      'Keep it secret: it is shown only here. Send it as "Authorization: Bearer <key>". You can rotate it at any time.',
    ],
    [
      ['Service', urls.service],
      ['Docs', urls.docs],
      ['API', urls.api],
      ['Manage', urls.manage],
    ],
  );
}

export function softLimitMail(name: string, softLimitNano: bigint, month: string): Rendered {
  return compose(`Soft limit reached for ${name}`, [
    `The spending of account ${name} for ${month} has reached its soft limit of ${formatUsd(softLimitNano)} USD.`,
    'Requests keep being served until the hard limit or the balance stops them.',
  ]);
}

export function keyAuthMail(keyId: string): Rendered {
  return compose(`Provider key #${keyId} was refused`, [
    `The upstream refused provider key #${keyId} of your pool as unauthorised. The key sleeps and is tried again later; traffic goes to your other keys meanwhile.`,
    'Check the key with its provider, then replace or disable it in your key pool.',
  ]);
}

export function billingNoticeMail(subject: string, text: string): Rendered {
  return compose(subject, text.split(/\n{2,}/));
}
