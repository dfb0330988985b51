import type { Config } from '../config.js';
import { serve } from '../main.js';

export async function serveCommand(config: Config): Promise<void> {
  await serve(config);
}
