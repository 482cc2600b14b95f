#!/usr/bin/env node
// `npx gw …` in a checkout: runs the command's TypeScript through tsx, like `npm start` does.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
