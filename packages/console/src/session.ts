import { api, setCsrfToken, unwrap } from './api/client';

export interface Who {
  id: number;
  name: string;
  dna: string;
  balance: number;
  /** May use the Manage pages (subaccounts). */
  manage: boolean;
  /** Owner or root: provider keys and configuration. */
  admin: boolean;
  root: boolean;
}

async function whoAmI(): Promise<Who> {
  const status = unwrap(await api.GET('/dashboard/status'));
  return {
    id: status.id,
    name: status.name,
    dna: status.dna,
    balance: status.balance,
    manage: status.manage,
    admin: status.admin,
    // Root is the one account without a parent: its DNA has one segment.
    root: status.dna.split('.').filter(Boolean).length === 1,
  };
}

/** The session this browser already has (cookie), if any. */
export async function resumeSession(): Promise<Who | undefined> {
  const session = await api.GET('/console/api/session');
  if (!session.data) {
    return undefined;
  }
  setCsrfToken(session.data.csrf_token);
  return whoAmI();
}

export async function signIn(key: string): Promise<Who> {
  const session = unwrap(await api.POST('/console/api/session', { body: { key } }));
  setCsrfToken(session.csrf_token);
  return whoAmI();
}

export async function signOut(): Promise<void> {
  await api.DELETE('/console/api/session');
  setCsrfToken('');
}
