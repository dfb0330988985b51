import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { assertFocusVisible, checkPage, focusedDescription, tabTo, useBrowser } from '../helpers/browser.js';
import { PASSWORD, seedCatalogue } from '../portal/catalogue-fixture.js';

/**
 * The search page in Chromium (issue 26): on a phone the count and sort come first and the filters
 * are folded into a disclosure; filters and sort apply as they change, by keyboard, focus kept and
 * the new count announced; without script the same form works with its buttons; finding nothing
 * offers "did you mean". axe and screenshots at 375 and 1280 px.
 */

describe('buyer portal in a browser: the search page on a phone, as filters are ticked, and without script', () => {
  const session = useBrowser();
  let t: TestApp;
  let base: string;

  before(async () => {
    t = await buildTestApp();
    await seedCatalogue(t);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(async () => { await t.close(); });

  async function signIn(page: Page): Promise<void> {
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('Email address').fill('bea@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/`);
  }
  /** Script errors and CSP refusals the page reports (the browser asking for a favicon the portal has none of is neither). */
  function problemsOf(page: Page): string[] {
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) problems.push(`${message.text()} (${message.location().url})`);
    });
    page.on('pageerror', (error) => problems.push(error.message));
    return problems;
  }
  const cardTitles = (page: Page) => page.locator('.card__title').allTextContents();
  /** The live region portal.js announces the count in. */
  const announced = (page: Page, text: string) => page.locator('form.catalogue-search > [role="status"][aria-live="polite"]', {
    hasText: new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
  }).waitFor({ state: 'attached' });

  it('on a phone: the results first, the filters folded, applied as they are ticked by keyboard, focus kept and the count announced', async () => {
    const page = await session.open(`${base}/sign-in`, { width: 375 });
    const problems = problemsOf(page);
    await signIn(page);
    await page.goto(`${base}/?q=hoodie`);
    const summary = page.getByText('Filters', { exact: true });
    const red = page.getByRole('checkbox', { name: /^Red/ });
    assert.equal(await red.isVisible(), false, 'folded away');
    assert.equal(await page.getByRole('button', { name: 'Apply filters' }).count(), 0, 'with script, no button to press');
    const top = async (text: string | RegExp) => (await page.getByText(text).first().boundingBox())?.y ?? NaN;
    const [count, sort, filters, card] = [await top(/^2 products, showing 1 to 2$/), await top('Sort by'), await top('Filters'), await top('Chaz Kangaroo Hoodie')];
    assert.ok(count < sort && sort < filters && filters < card, `count ${count}, sort ${sort}, filters ${filters}, first card ${card}`);

    await tabTo(page, summary);
    await page.keyboard.press('Enter');
    assert.equal(await red.isVisible(), true, 'unfolded by keyboard');
    await checkPage(page, 'catalogue-search-filters');

    await tabTo(page, red);
    await page.keyboard.press('Space');
    await page.waitForURL(/colour=Red/);
    await announced(page, '1 product, showing 1 to 1');
    assert.deepEqual(await cardTitles(page), ['Chaz Kangaroo Hoodie, Red']);
    assert.match(await focusedDescription(page), /^checkbox "Red \(1\)"/, 'focus stays on the box just ticked');
    await assertFocusVisible(page);
    assert.equal(await page.title(), 'Search: hoodie — Colour: Red – Portway');
    assert.equal(await page.getByText('Filters (1 applied)', { exact: true }).count(), 1);
    assert.equal(await red.isVisible(), true, 'the disclosure stays open');
    assert.equal(new URL(page.url()).searchParams.getAll('colour').join(), 'Red', 'a shareable address');

    // Unticked by keyboard: both colours again.
    await page.keyboard.press('Space');
    await announced(page, '2 products, showing 1 to 2');
    assert.deepEqual(await cardTitles(page), ['Chaz Kangaroo Hoodie, Black', 'Chaz Kangaroo Hoodie, Red']);

    // The sort applies as it is chosen too.
    await page.goto(`${base}/`);
    assert.equal((await cardTitles(page))[0], 'Chaz Kangaroo Hoodie, Black', 'relevance: with no words, the default order');
    await page.getByLabel('Sort by').selectOption('name');
    await page.waitForURL(/sort=name/);
    await announced(page, '27 products, showing 1 to 20');
    assert.equal((await cardTitles(page))[0], 'Aero Daily Tee, White');
    assert.match(await focusedDescription(page), /^combobox "Sort by"/);
    assert.deepEqual(problems, [], 'no script error and nothing the CSP refused');
  });

  it('on a wide screen the filters sit beside the results without opening anything', async () => {
    const page = await session.open(`${base}/sign-in`);
    await signIn(page);
    await page.goto(`${base}/?q=hoodie`);
    assert.equal(await page.getByRole('checkbox', { name: /^Red/ }).isVisible(), true);
    assert.equal(await page.getByText('Filters', { exact: true }).isVisible(), false, 'no disclosure to open');
    const filters = await page.getByRole('group', { name: 'Colour' }).boundingBox();
    const card = await page.getByText('Chaz Kangaroo Hoodie').first().boundingBox();
    assert.ok(filters && card && filters.x + filters.width <= card.x, 'beside, to the left');
  });

  it('without script: the disclosure opens, "Apply filters" and "Sort" submit the form', async () => {
    const context = await session.browser.newContext({ javaScriptEnabled: false, viewport: { width: 375, height: 800 }, reducedMotion: 'reduce' });
    try {
      const page = await context.newPage();
      await signIn(page);
      await page.goto(`${base}/?q=hoodie`);
      await page.getByText('Filters', { exact: true }).click();
      await page.getByRole('checkbox', { name: /^Red/ }).check();
      assert.equal(new URL(page.url()).search, '?q=hoodie', 'nothing happens until the button');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/colour=Red/);
      assert.deepEqual(await cardTitles(page), ['Chaz Kangaroo Hoodie, Red']);
      assert.equal(await page.title(), 'Search: hoodie — Colour: Red – Portway');

      await page.goto(`${base}/`);
      await page.getByLabel('Sort by').selectOption('name');
      await page.getByRole('button', { name: 'Sort', exact: true }).click();
      await page.waitForURL(/sort=name/);
      assert.equal((await cardTitles(page))[0], 'Aero Daily Tee, White');
    } finally {
      await context.close();
    }
  });

  it('finding nothing offers did you mean, says which word matched nothing, and shows no filter panel', async () => {
    const page = await session.open(`${base}/sign-in`);
    await signIn(page);
    await page.goto(`${base}/?q=hudie`);
    await page.getByText('This word matched nothing: “hudie”.').waitFor();
    assert.equal(await page.getByRole('checkbox').count(), 0);
    assert.equal(await page.getByText(/^Filters/).count(), 0);
    assert.equal(await page.getByLabel('Sort by').count(), 0);
    await checkPage(page, 'catalogue-search-no-results');
    await tabTo(page, page.getByRole('link', { name: 'hoodie' }));
    await page.keyboard.press('Enter');
    await page.waitForURL(/\?q=hoodie$/);
    assert.deepEqual(await cardTitles(page), ['Chaz Kangaroo Hoodie, Black', 'Chaz Kangaroo Hoodie, Red']);
  });
});
