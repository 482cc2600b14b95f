import { checkTarget } from './news-rules.js';
import type { NewsDeps, NewsTarget } from './ports.js';

/** Removes every item of one target (all system news for the system target). */
export async function deleteNews(deps: NewsDeps, target: NewsTarget): Promise<number> {
  return deps.store.deleteTarget(checkTarget(target));
}
