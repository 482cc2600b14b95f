// `gw secrets rotate-key` (keypool's part): re-encrypts every provider key from GW_SECRET_KEY to
// GW_NEW_SECRET_KEY in one transaction, with every keypool process stopped. Runs where the keypool
// database is reachable, through `npx gw` or in the keypool image:
//   node --conditions=gw-dist dist/cli/rotate-secret-key.js
import { rotateServiceSecrets, runCommand } from '@gw/kit';
import { rotateSecretKey } from '../domain/rotate-secret-key.js';
import { keyRotationTransaction } from '../store/secret-rotation-store.js';
import { loadRotationConfig } from './config.js';

runCommand('keypool rotate-key', async (log) => {
  const config = loadRotationConfig(process.env);
  await rotateServiceSecrets({
    service: 'keypool',
    config,
    migrations: new URL('../../migrations', import.meta.url),
    log,
    rotate: (db, rotation) => rotateSecretKey(keyRotationTransaction(db), rotation),
  });
});
