import { dashboardBill } from './http/dashboard/bill/get.js';
import { getXBill } from './http/x-bill/get.js';
import { dashboardInfo } from './http/dashboard/info/get.js';
import { dashboardLive } from './http/dashboard/live/get.js';
import { dashboardLogs } from './http/dashboard/logs/get.js';
import { getAudit } from './http/x-audit/get.js';
import { getDnaOne } from './http/x-dna/[identifier]/get.js';
import { getDna } from './http/x-dna/get.js';
import { getInfo } from './http/x-info/get.js';
import { deleteUser } from './http/x-users/[identifier]/delete.js';
import { getUser } from './http/x-users/[identifier]/get.js';
import { postUser, putUser } from './http/x-users/[identifier]/put.js';
import { getUsers } from './http/x-users/get.js';
import { dashboardStatus } from './http/dashboard/status/get.js';
import { getHealthz } from './http/healthz/get.js';
import { getLivez } from './http/livez/get.js';
import type { Route } from './http/route.js';
import { postRoot } from './http/x-root/post.js';
import { postSelf } from './http/x-self/post.js';
import { postUsers } from './http/x-users/post.js';
import { getKeys } from './http/x-keys/get.js';
import { postKeys } from './http/x-keys/post.js';
import { getKeysBySelector } from './http/x-keys/[selector]/get.js';
import { postKey, putKey } from './http/x-keys/[selector]/put.js';
import { deleteKey } from './http/x-keys/[selector]/delete.js';
import { getGeneratedKey } from './http/x-gkey/get.js';
import { getEncryptedKey } from './http/x-ekey/[plain]/get.js';
import { getDecryptedKey } from './http/x-dkey/[cipher]/get.js';
import { getConfig } from './http/x-config/get.js';
import { postConfig, putConfig } from './http/x-config/put.js';
import { deleteConfig } from './http/x-config/delete.js';
import { getConf } from './http/x-conf/get.js';
import { postConf } from './http/x-conf/post.js';
import { getRoute } from './http/x-route/get.js';
import { postSystemNews } from './http/x-news/post.js';
import { deleteSystemNews } from './http/x-news/delete.js';
import { postTargetNews } from './http/x-news/[target]/post.js';
import { deleteTargetNews } from './http/x-news/[target]/delete.js';
import { dashboardNews } from './http/dashboard/news/get.js';
import { dashboardConf } from './http/dashboard/conf/get.js';
import { postSignup } from './http/x-sign/post.js';
import { postSignupVerify } from './http/x-sign/verify/post.js';
import { getSignupActivate } from './http/x-sign/activate/get.js';
import { dashboardModels } from './http/dashboard/models/get.js';
import { openAiModels } from './http/v1/models/get.js';
import { openApiRoute } from './http/openapi.json/get.js';
import { deleteConsoleSession } from './http/console/api/session/delete.js';
import { getConsoleSession } from './http/console/api/session/get.js';
import { postConsoleSession } from './http/console/api/session/post.js';
import { docsRoute } from './http/docs/get.js';

/**
 * Every HTTP endpoint of the edge with its access level and its OpenAPI description (the `doc`
 * of each Route). Authorization tests walk this table, so a route missing here cannot be
 * reached, and GET /openapi.json and docs/openapi.json describe exactly these routes.
 */
export const ROUTES: readonly Route[] = [
  getHealthz,
  getLivez,
  openApiRoute(() => ROUTES),
  docsRoute(() => ROUTES),
  // Self-signup (no key; 404 unless SIGN_ENABLE).
  postSignup,
  postSignupVerify,
  getSignupActivate,
  dashboardStatus('/dashboard/status'),
  dashboardStatus('/dashboard/x-user-status'),
  postUsers,
  postSelf,
  postRoot,
  // Accounts: subaccount management and the dashboard's user_info.
  getUsers,
  getUser,
  getDna,
  getDnaOne,
  putUser,
  postUser,
  deleteUser,
  dashboardInfo('/dashboard/info'),
  dashboardInfo('/dashboard/x-user-info'),
  // Billing: the caller's usage views.
  dashboardLive,
  dashboardBill,
  getXBill,
  getInfo,
  dashboardLogs('/dashboard/logs'),
  dashboardLogs('/dashboard/x-user-logs'),
  getAudit,
  // Keypool: the owner's provider keys and the /x-ekey, /x-dkey ciphers.
  getKeys,
  postKeys,
  getKeysBySelector,
  putKey,
  postKey,
  deleteKey,
  getGeneratedKey,
  getEncryptedKey,
  getDecryptedKey,
  // Config: the owner's configuration.
  getConfig,
  putConfig,
  postConfig,
  deleteConfig,
  // Owner overview and batch configuration.
  getConf,
  postConf,
  // Proxy: the routing decision for a model (owner).
  getRoute,
  // News: system news (root), targeted news (an ancestor of the target), the caller's news.
  postSystemNews,
  deleteSystemNews,
  postTargetNews,
  deleteTargetNews,
  dashboardNews('/dashboard/news'),
  dashboardNews('/dashboard/x-user-news'),
  dashboardConf,
  // The model listing, built from the default price table (never forwarded to an upstream).
  dashboardModels,
  openAiModels('/v1/models'),
  openAiModels('/models'),
  // The web console's session (served at /console/; the session never reaches /v1).
  postConsoleSession,
  getConsoleSession,
  deleteConsoleSession,
];
