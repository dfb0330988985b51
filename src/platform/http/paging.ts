import { errors } from './problem.js';

/** `page` and `pageSize` of a list's query string, or a 400 naming each bad one (never a silent cap). */
export interface Paging { page: number; pageSize: number }

export function parsePaging(query: Record<string, unknown>, limits: { defaultSize: number; maxSize: number; maxPage: number }): Paging {
  const problems: Array<{ path: string; message: string }> = [];
  const integer = (name: string, fallback: number, max: number): number => {
    const value = query[name];
    if (value === undefined || value === '') return fallback;
    if (typeof value !== 'string') {
      problems.push({ path: `/${name}`, message: 'must be given once' });
      return fallback;
    }
    if (!/^\d{1,9}$/.test(value) || Number(value) < 1 || Number(value) > max) {
      problems.push({ path: `/${name}`, message: `must be a whole number from 1 to ${max}; got "${value.slice(0, 40)}"` });
      return fallback;
    }
    return Number(value);
  };
  const page = integer('page', 1, limits.maxPage);
  const pageSize = integer('pageSize', limits.defaultSize, limits.maxSize);
  if (problems.length > 0) {
    throw errors.badRequest(`Invalid query parameter${problems.length === 1 ? '' : 's'}: ${problems.map((p) => p.path.slice(1)).join(', ')}.`, problems);
  }
  return { page, pageSize };
}
