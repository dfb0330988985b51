#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx, so `npm ci` is all the set-up there is.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
