import type { ParsedMail } from 'mailparser';

/** What the self-signup tests share: the answer shape, fresh addresses, the mailed code and link. */
export interface SignupAnswer {
  success: boolean;
  message: string;
  user?: { id: number; name: string; email: string };
}

let counter = 0;
/** A new address each call, so tests never meet the per-address wait of another. */
export const fresh = (tag = 'sign') => `${tag}${Date.now().toString(36)}${++counter}@example.com`;
export const PUBLIC_URL = 'https://gateway.example.test';

export function verificationOf(mail: ParsedMail): { code: string; token: string; link: string } {
  const code = /verification code is (\d{6})/.exec(mail.text ?? '')?.[1];
  const link = new RegExp(`${PUBLIC_URL}/x-sign/activate\\?token=([A-Za-z0-9_-]+)`).exec(mail.text ?? '');
  if (!code || !link?.[1]) {
    throw new Error(`not a verification mail: ${mail.text ?? ''}`);
  }
  return { code, token: link[1], link: link[0] };
}
