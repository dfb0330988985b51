import path from 'node:path';
import { REPO_ROOT } from './paths.js';

/**
 * Shared by the lookup scenario and its server entry. The entry cannot be imported for these (it
 * starts a server when loaded), and importing the scenario's data module into the server would
 * load the generators into the process whose memory is measured.
 */
export const LOOKUP_SERVER_ENTRY = path.join(REPO_ROOT, 'bench/lib/lookup-server.ts');
/** Where the entry mounts its baseline routes. */
export const BASELINE_PREFIX = '/bench/baseline';
