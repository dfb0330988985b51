// Types of scripts/dist.js, for the tests that use it.
export declare const ROOT: string;
export declare function sourceHash(root?: string): string;
export declare function distState(root?: string): 'fresh' | 'stale' | 'missing';
export declare function build(root?: string, log?: (line: string) => void): Promise<boolean>;
export declare function ensureBuilt(root?: string, log?: (line: string) => void): Promise<void>;
