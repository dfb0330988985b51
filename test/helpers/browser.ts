import assert from 'node:assert/strict';
import { accessSync, constants, statSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AxeBuilder } from '@axe-core/playwright';
import type { AxeResults, Result } from 'axe-core';
import pixelmatch from 'pixelmatch';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { PNG } from 'pngjs';

/**
 * Browser tests in Debian's Chromium (`apt-get install chromium`), driven by playwright-core, which
 * never downloads a browser of its own. Pages are driven as a buyer would: by label and role
 * (`page.getByRole`, `page.getByLabel`), with the keyboard where the test is about the keyboard.
 *
 *   const session = useBrowser();                   // one Chromium for the test file, closed in `after`
 *   const page = await session.open(url);           // a fresh context at 1280 px (or { width: 375 })
 *   await checkPage(page, 'order-list');            // axe at 375 and 1280 px + screenshots of both
 *   await tabTo(page, page.getByRole('button', { name: 'Place order' }));
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Where Debian's package puts Chromium's launcher; `CHROMIUM_PATH` overrides it. */
export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Flags for Chromium as root in a container. Playwright already passes `--headless` (Chromium's
 * new headless mode since 132, the only one Debian's `chromium` has) and these two on Linux; they
 * are named here so that the harness does not depend on Playwright's defaults:
 *  - `--no-sandbox`: Chromium refuses to start its sandbox as root, and Docker's default seccomp
 *    profile blocks the user namespaces it would use instead;
 *  - `--disable-dev-shm-usage`: Docker gives `/dev/shm` 64 MB, and a renderer that runs out of it
 *    crashes; shared memory goes to the temporary directory instead.
 */
export const CHROMIUM_ARGS: readonly string[] = ['--no-sandbox', '--disable-dev-shm-usage'];

/** The widths every page is screenshot at: a phone and a laptop. */
export const SCREENSHOT_WIDTHS = [375, 1280] as const;

/** The portal's screenshots: `<name>-375.png` and `<name>-1280.png`, written when the page looks different. */
export const SCREENSHOT_DIR = path.join(root, 'screenshots', 'portal');

const DEFAULT_HEIGHT = 800;

/** Chromium is not where the tests look for it: the message says how to install it or where to point them. */
export class ChromiumMissingError extends Error {
  constructor(readonly executablePath: string, reason: string) {
    super(
      `Browser tests need Chromium, and ${executablePath} ${reason}. Install Debian's package with ` +
      '`apt-get install chromium` (as root; `bash .ci/run` does it), or set CHROMIUM_PATH to a Chromium executable. ' +
      'Browser tests are never skipped: a missing browser fails the run, in CI and outside it.',
    );
    this.name = 'ChromiumMissingError';
  }
}

/** `CHROMIUM_PATH` when set and not empty, else Debian's `/usr/bin/chromium`. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.CHROMIUM_PATH?.trim();
  return fromEnv ? fromEnv : DEFAULT_CHROMIUM_PATH;
}

function assertExecutable(executablePath: string): void {
  let isFile: boolean;
  try {
    isFile = statSync(executablePath).isFile();
  } catch {
    throw new ChromiumMissingError(executablePath, 'does not exist');
  }
  if (!isFile) throw new ChromiumMissingError(executablePath, 'is not a file');
  try {
    accessSync(executablePath, constants.X_OK);
  } catch {
    throw new ChromiumMissingError(executablePath, 'is not executable');
  }
}

/** Launches headless Chromium (Debian's, or `CHROMIUM_PATH`); throws ChromiumMissingError when it is not there. */
export async function launchBrowser(options: { executablePath?: string } = {}): Promise<Browser> {
  const executablePath = options.executablePath ?? chromiumPath();
  assertExecutable(executablePath);
  try {
    return await chromium.launch({
      executablePath,
      headless: true,
      chromiumSandbox: false,
      args: [...CHROMIUM_ARGS],
      // A cold start on a busy 2-core machine takes seconds; Playwright's default is 3 minutes.
      timeout: 60_000,
    });
  } catch (error) {
    throw new Error(`Chromium at ${executablePath} did not start: ${(error as Error).message}`, { cause: error });
  }
}

export interface OpenPageOptions {
  /** Viewport width in CSS pixels (1280 unless given). */
  width?: number;
  /** Viewport height in CSS pixels (800 unless given). */
  height?: number;
  /** Return the page even when the server answered 4xx/5xx (by default that fails: a test rarely means to look at an error page). */
  allowErrorStatus?: boolean;
}

/**
 * Opens `url` in a fresh browser context (its own cookies, as a new buyer) at the given viewport.
 * A journey goes on in the same page (clicks, `page.goto`), which keeps its cookies.
 */
export async function openPage(browser: Browser, url: string, options: OpenPageOptions = {}): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? DEFAULT_HEIGHT },
    // Stable screenshots: no animation half-way, the light scheme.
    reducedMotion: 'reduce',
    colorScheme: 'light',
  });
  const page = await context.newPage();
  const response = await page.goto(url);
  if (!options.allowErrorStatus && response && response.status() >= 400) {
    throw new assert.AssertionError({ message: `GET ${url} answered ${response.status()} ${response.statusText()}` });
  }
  return page;
}

export interface BrowserSession {
  /** The file's Chromium; available inside tests (launched in `before`). */
  readonly browser: Browser;
  /** `openPage` on the file's Chromium. */
  open(url: string, options?: OpenPageOptions): Promise<Page>;
}

/**
 * One Chromium for the test file (or the `describe` it is called in): launched in `before`, closed
 * in `after`. When Chromium is missing, `before` fails, and with it every test of the file, with
 * ChromiumMissingError's message; nothing is skipped.
 */
export function useBrowser(options: { executablePath?: string } = {}): BrowserSession {
  let browser: Browser | undefined;
  before(async () => {
    browser = await launchBrowser(options);
  });
  after(async () => {
    await browser?.close();
  });
  const session: BrowserSession = {
    get browser() {
      if (!browser) throw new Error('Chromium is not launched: use the session inside tests (it starts in `before`)');
      return browser;
    },
    open: (url, o) => openPage(session.browser, url, o),
  };
  return session;
}

// ---------------------------------------------------------------------------------------------
// Accessibility (axe-core)

/** WCAG 2.0, 2.1 and 2.2 A and AA rules, and Deque's best practices. */
export const AXE_TAGS: readonly string[] = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

const BLOCKING_IMPACTS = new Set(['serious', 'critical']);

function describeViolation(v: Result): string {
  const nodes = v.nodes.map((node) => {
    const target = node.target.map((t) => (typeof t === 'string' ? t : JSON.stringify(t))).join(' >>> ');
    const html = node.html.length > 160 ? `${node.html.slice(0, 157)}...` : node.html;
    return `      ${target}   ${html}`;
  });
  return [`  - ${v.id} (${v.impact}): ${v.help}`, `    ${v.helpUrl}`, ...nodes].join('\n');
}

/**
 * Runs axe on the page as it is now (at its current viewport) and fails listing every serious or
 * critical violation: its rule id, help, link and each failing element. Moderate and minor ones do
 * not fail; they are in the returned results.
 */
export async function checkAccessibility(page: Page, name: string): Promise<AxeResults> {
  const results = await new AxeBuilder({ page }).withTags([...AXE_TAGS]).analyze();
  const blocking = results.violations.filter((v) => v.impact && BLOCKING_IMPACTS.has(v.impact));
  if (blocking.length > 0) {
    throw new assert.AssertionError({
      message: `axe found ${blocking.length} serious or critical violation${blocking.length === 1 ? '' : 's'} on "${name}" (${page.url()}):\n` +
        blocking.map(describeViolation).join('\n'),
    });
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// Screenshots

export interface Screenshot {
  width: number;
  file: string;
  /** Whether the file was written: new, or the page looks different from it (`screenshotChanged`). */
  written: boolean;
}

/**
 * When a screenshot counts as changed, so that a run in which no page changed leaves the committed
 * PNGs as they are. Chromium does not draw a page to the same bytes twice: glyph edges and
 * gradients come out a few levels of colour apart from run to run, and the PNG encoder's bytes
 * differ with them. So the pixels are compared (pixelmatch), not the bytes:
 *  - `threshold` 0.1, pixelmatch's default: two pixels are the same when their colours are closer
 *    than 10 % of the largest possible difference (YIQ, weighted as the eye sees), far above the
 *    noise and far below any colour the portal's stylesheet tells apart;
 *  - anti-aliased pixels (pixelmatch's detection: an edge pixel between two colours) are not
 *    counted, where text rendering differs most;
 *  - up to `maxPixels` other pixels may differ. One character of 16 px text changed, the smallest
 *    change a page shows, differs in well over a hundred.
 * A different size (the page grew or shrank) is always a change.
 */
export const SCREENSHOT_TOLERANCE = { threshold: 0.1, maxPixels: 24 } as const;

/** The number of pixels of `next` that differ from `previous` (both PNG), or 'size' when their sizes differ. */
export function screenshotDifference(previous: Buffer, next: Buffer): number | 'size' {
  const a = PNG.sync.read(previous);
  const b = PNG.sync.read(next);
  if (a.width !== b.width || a.height !== b.height) return 'size';
  return pixelmatch(a.data, b.data, undefined, a.width, a.height, { threshold: SCREENSHOT_TOLERANCE.threshold, includeAA: false });
}

/** Whether `next` shows something other than the PNG already in `file` (or there is none, or it is unreadable). */
export async function screenshotChanged(file: string, next: Buffer): Promise<boolean> {
  let previous: Buffer;
  try {
    previous = await fs.readFile(file);
  } catch {
    return true;
  }
  try {
    const difference = screenshotDifference(previous, next);
    return difference === 'size' || difference > SCREENSHOT_TOLERANCE.maxPixels;
  } catch {
    return true; // not a PNG pngjs can read: replaced
  }
}

/**
 * Loads every picture of the page now, lazy ones too, and waits until each has loaded or failed: a
 * lazy picture below the window loads only when scrolled near, so a full-page screenshot would show
 * it one run and not the next.
 */
async function loadPictures(page: Page): Promise<void> {
  await page.evaluate(`Promise.all(Array.from(document.images).map((img) => {
    img.loading = 'eager';
    return img.complete ? null : new Promise((done) => { img.addEventListener('load', done); img.addEventListener('error', done); });
  }))`);
}

/**
 * Saves full-page PNGs of the page at 375 and 1280 px wide as `<dir>/<name>-<width>.png` (dir:
 * `screenshots/portal/` at the repository root unless given), then puts the viewport back. A file
 * is written only when the page looks different from it (`screenshotChanged`): a run that changed
 * no page leaves the committed screenshots untouched. Fails, after writing them, when the page is
 * wider than the window at either width (a buyer on a phone would scroll sideways; WCAG 1.4.10
 * Reflow).
 */
export async function screenshotPage(page: Page, name: string, options: { dir?: string } = {}): Promise<Screenshot[]> {
  assert.match(name, /^[a-z0-9]+(?:-[a-z0-9]+)*$/, `screenshot name "${name}": lower-case words joined by hyphens, so the file names are plain`);
  const dir = options.dir ?? SCREENSHOT_DIR;
  await fs.mkdir(dir, { recursive: true });
  const original = page.viewportSize();
  const written: Screenshot[] = [];
  const tooWide: string[] = [];
  await loadPictures(page);
  try {
    for (const width of SCREENSHOT_WIDTHS) {
      await page.setViewportSize({ width, height: original?.height ?? DEFAULT_HEIGHT });
      // Two frames after the resize, so the page has been laid out and painted at this width: a
      // capture straight after it sometimes missed a row of the product grid and a focus ring's colour.
      await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
      const file = path.join(dir, `${name}-${width}.png`);
      const png = await page.screenshot({ fullPage: true, animations: 'disabled', caret: 'hide' });
      const changed = await screenshotChanged(file, png);
      if (changed) await fs.writeFile(file, png);
      written.push({ width, file, written: changed });
      const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
      if (scrollWidth > width) tooWide.push(`${scrollWidth} px wide in a ${width} px window`);
    }
  } finally {
    if (original) await page.setViewportSize(original);
  }
  if (tooWide.length > 0) {
    throw new assert.AssertionError({ message: `"${name}" (${page.url()}) scrolls sideways: ${tooWide.join('; ')} (screenshots in ${dir})` });
  }
  return written;
}

/**
 * What every portal page gets: axe at 375 and 1280 px (no serious or critical violation at either)
 * and its screenshots. Everything runs before it fails, and the failure lists every problem.
 */
export async function checkPage(page: Page, name: string, options: { dir?: string } = {}): Promise<void> {
  const problems: string[] = [];
  try {
    await screenshotPage(page, name, options);
  } catch (error) {
    problems.push((error as Error).message);
  }
  const original = page.viewportSize();
  try {
    for (const width of SCREENSHOT_WIDTHS) {
      await page.setViewportSize({ width, height: original?.height ?? DEFAULT_HEIGHT });
      try {
        await checkAccessibility(page, `${name} at ${width} px`);
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
  } finally {
    if (original) await page.setViewportSize(original);
  }
  if (problems.length > 0) throw new assert.AssertionError({ message: problems.join('\n\n') });
}

// ---------------------------------------------------------------------------------------------
// Keyboard

/** `role "accessible name"` of the focused element, from its accessibility tree; `(nothing)` when focus is on the page itself. */
export async function focusedDescription(page: Page): Promise<string> {
  const onPage = await page.evaluate<boolean>('document.activeElement === null || document.activeElement === document.body');
  if (onPage) return '(nothing)';
  const snapshot = await page.locator(':focus').ariaSnapshot();
  return (snapshot.split('\n')[0] ?? '').replace(/^- /, '').replace(/:$/, '');
}

// In-page code: runs in Chromium, where these exist (the project's TypeScript has no DOM library).
interface InPageElement {
  blur(): void;
  focus(options?: { preventScroll?: boolean; focusVisible?: boolean }): void;
}
declare const document: { activeElement: InPageElement | null; body: InPageElement };
declare function getComputedStyle(element: InPageElement): Record<string, string>;

const FOCUS_STYLE_PROPERTIES = [
  'outlineStyle', 'outlineWidth', 'outlineColor', 'boxShadow', 'borderTopColor', 'borderBottomColor',
  'borderTopWidth', 'borderBottomWidth', 'backgroundColor', 'color', 'textDecorationLine',
];

/**
 * Fails unless the focused element looks different from its unfocused self: first by its computed
 * style (outline, shadow, border, colours, underline), and when none of those change (an indicator
 * drawn by a parent's `:focus-within` or a pseudo-element), by comparing pixels around it. Focus is
 * left where it was.
 */
export async function assertFocusVisible(page: Page): Promise<void> {
  const focused = page.locator(':focus');
  if (await focused.count() === 0) throw new assert.AssertionError({ message: 'nothing on the page has focus' });
  // No named functions inside in-page code: tsx compiles them with a `__name` helper that exists
  // only in Node.
  const [withFocus, without] = await focused.evaluate((el: InPageElement, properties: string[]) => [0, 1].map((step) => {
    if (step === 1) el.blur();
    const style = getComputedStyle(el);
    const seen = properties.map((p) => style[p] ?? '').join('|');
    if (step === 1) el.focus({ preventScroll: true, focusVisible: true });
    return seen;
  }), FOCUS_STYLE_PROPERTIES);
  if (withFocus !== without) return;

  // A handle, not the `:focus` locator: that would find nothing once the element is blurred.
  const element = await focused.elementHandle();
  const box = await element?.boundingBox();
  if (element && box) {
    const margin = 8;
    const clip = { x: Math.max(0, box.x - margin), y: Math.max(0, box.y - margin), width: box.width + 2 * margin, height: box.height + 2 * margin };
    const focusedPixels = await page.screenshot({ clip, animations: 'disabled', caret: 'hide' });
    await element.evaluate((el: InPageElement) => el.blur());
    const unfocusedPixels = await page.screenshot({ clip, animations: 'disabled', caret: 'hide' });
    await element.evaluate((el: InPageElement) => el.focus({ preventScroll: true, focusVisible: true }));
    await element.dispose();
    if (!focusedPixels.equals(unfocusedPixels)) return;
  }
  throw new assert.AssertionError({
    message: `focus on ${await focusedDescription(page)} (${page.url()}) cannot be seen: it looks the same focused and unfocused (WCAG 2.4.7 Focus Visible)`,
  });
}

/**
 * Presses Tab until `target` has focus, as a keyboard-only buyer would, checking at every stop
 * that focus can be seen (unless `checkFocusVisible: false`). Returns the stops (`role "name"`);
 * fails listing them when `target` is not reached within `maxTabs` presses.
 */
export async function tabTo(page: Page, target: Locator, options: { maxTabs?: number; checkFocusVisible?: boolean } = {}): Promise<string[]> {
  const maxTabs = options.maxTabs ?? 40;
  if (await target.count() === 0) throw new assert.AssertionError({ message: `${target.toString()} is not on ${page.url()}` });
  const stops: string[] = [];
  for (let i = 0; i < maxTabs; i += 1) {
    await page.keyboard.press('Tab');
    stops.push(await focusedDescription(page));
    if (options.checkFocusVisible !== false && stops.at(-1) !== '(nothing)') await assertFocusVisible(page);
    if (await target.evaluate((el: InPageElement) => el === document.activeElement)) return stops;
  }
  throw new assert.AssertionError({
    message: `${maxTabs} presses of Tab did not reach ${target.toString()} on ${page.url()}; focus went to:\n` +
      stops.map((s, n) => `  ${n + 1}. ${s}`).join('\n'),
  });
}
