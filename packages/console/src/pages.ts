import type { Who } from './session';

export interface PageInfo {
  path: string;
  label: string;
  /** Who sees the page in the menu (and may open it). */
  visible: (who: Who) => boolean;
}

const everyone = () => true;

/** The console's pages, in menu order; a page the caller may not use is not shown. */
export const PAGES = [
  { path: 'overview', label: 'Overview', visible: everyone },
  { path: 'usage', label: 'Usage and bills', visible: everyone },
  { path: 'subaccounts', label: 'Subaccounts', visible: (who: Who) => who.manage },
  { path: 'keys', label: 'Provider keys', visible: (who: Who) => who.admin },
  { path: 'config', label: 'Configuration', visible: (who: Who) => who.admin },
  { path: 'news', label: 'News', visible: everyone },
  { path: 'log', label: 'Operation log', visible: everyone },
  { path: 'rotate', label: 'Key rotation', visible: everyone },
] as const satisfies readonly PageInfo[];

/** The page a /console/<page> URL names, `overview` by default. */
export function pageFromLocation(): string {
  return window.location.pathname.replace(/^\/console\/?/, '').split('/')[0] || 'overview';
}
