// The projects screen: empty state, create, rename and delete through the dialogs, pagination.
import type { Browser, Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { apiCreateProject } from '../src/api.js';
import { captureScreen, launchBrowser, moveAwayFromTooltips, openSession, type Session } from '../src/browser.js';
import { startPortal, type Portal } from '../src/portal.js';
import { tearDownSuite } from '../src/suite.js';
import { escapeRegExp, holdRequests, overlay, signIn, storedSession, toast, waitForPath } from '../src/ui.js';

const USER = { username: 'grace', password: 'H0pper!Cobol' };
const NAME = 'Brain MRI 2026';
const RENAMED = 'Brain MRI 2026 (revised)';

let portal: Portal;
let browser: Browser;
let session: Session;

beforeAll(async () => {
  [portal, browser] = await Promise.all([startPortal(), launchBrowser()]);
  const companyId = await portal.createCompany('Hopper Radiology');
  await portal.createUser({ companyId, ...USER, firstname: 'Grace', lastname: 'Hopper', role: 'User' });
  session = await openSession(browser, portal.url);
  await signIn(session.page, USER);
});

tearDownSuite(() => ({ session, browser, portal }));

const PHONE = { width: 375, height: 740 };

/** The signed-in user on a phone-sized window, in the colour mode asked for (stored under 'mode'). */
async function phoneSession(mode: 'light' | 'dark'): Promise<Session> {
  const phone = await openSession(browser, portal.url, { viewport: PHONE, storageState: await session.context.storageState() });
  await phone.page.goto('/home');
  await phone.page.evaluate((m) => localStorage.setItem('mode', m), mode);
  await phone.page.reload();
  await phone.page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
  return phone;
}

/** Fails when the page is wider than its window: a phone user would have to scroll sideways. */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}

/** Fails unless the element is fully inside the window, left to right. */
async function expectInView(locator: Locator, width: number): Promise<void> {
  const box = await locator.boundingBox();
  if (box === null) throw new Error('not on screen');
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(width);
}

function projectsTable(page: Page) {
  return page.getByRole('table', { name: 'Projects' });
}

/** The project names in the table's body, in the order shown. */
async function shownNames(page: Page): Promise<string[]> {
  return projectsTable(page).locator('tbody tr td:first-child a').allInnerTexts();
}

describe('projects', () => {
  test('with no projects the screen says so and offers to add one', async () => {
    const { page } = session;
    await page.getByText('Manage and organize your projects', { exact: true }).waitFor();
    await page.getByRole('heading', { name: 'No projects found' }).waitFor();
    await page.getByText('No studies found', { exact: true }).waitFor();
    await page.getByText('Create your first project to start organizing your projects.', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Add Study' }).waitFor();
    const headers = await projectsTable(page).getByRole('columnheader').allInnerTexts();
    expect(headers).toEqual(['Name', 'Files', 'Studies', 'Last upload', 'Date Created', 'Date Updated', 'Actions']);
    // One state with one action: the title, the table's text, the description and 'Add Study'
    // together, and no second title or button for the same thing.
    const state = page.getByRole('group', { name: 'No projects found' });
    await state.getByText('No studies found', { exact: true }).waitFor();
    await state.getByText('Create your first project to start organizing your projects.', { exact: true }).waitFor();
    expect(await state.getByRole('button').allInnerTexts()).toEqual(['Add Study']);
    expect(await page.getByRole('button', { name: 'Add Study' }).count()).toBe(1);
    expect(await page.getByText('No projects found', { exact: true }).count()).toBe(1);
    await captureScreen(page, 'projects-empty');
    for (const mode of ['light', 'dark'] as const) {
      const phone = await phoneSession(mode);
      const phoneState = phone.page.getByRole('group', { name: 'No projects found' });
      // allInnerTexts does not wait: the list (and the storage card beside it) may still be loading.
      await phoneState.getByRole('button', { name: 'Add Study' }).waitFor();
      expect(await phoneState.getByRole('button').allInnerTexts()).toEqual(['Add Study']);
      await expectInView(phoneState.getByRole('button', { name: 'Add Study' }), PHONE.width);
      await expectNoSidewaysScroll(phone.page);
      await captureScreen(phone.page, `projects-empty-phone-${mode}`);
      await phone.context.close();
    }
    // The empty table's 'Add Study' opens the same create dialog.
    await page.getByRole('button', { name: 'Add Study' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create Project' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  test('create a project: the name is required and trimmed', async () => {
    const { page } = session;
    await page.getByRole('button', { name: 'Add Project' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create Project' });
    const name = dialog.getByRole('textbox', { name: 'Project Name' });
    expect(await name.getAttribute('placeholder')).toBe('Eg: My favorite project');
    await captureScreen(page, 'project-create-dialog');

    await name.fill('   ');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('The name of the study is required', { exact: true }).waitFor();
    await captureScreen(page, 'project-create-required');
    // Typing clears the message.
    await name.fill(`  ${NAME}  `);
    await dialog.getByText('The name of the study is required', { exact: true }).waitFor({ state: 'detached' });
    const held = await holdRequests(page, (url, method) => method === 'POST' && url.pathname === '/api/v1/study-petitions');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await held.arrived;
    await dialog.waitFor({ state: 'detached' });
    await overlay(page, 'Creating project...').waitFor();
    await captureScreen(page, 'project-creating');
    held.release();
    await overlay(page, 'Creating project...').waitFor({ state: 'detached' });
    await held.dispose();

    await projectsTable(page).getByRole('link', { name: NAME, exact: true }).waitFor();
    expect(await shownNames(page)).toEqual([NAME]);
    await page.getByRole('heading', { name: 'No projects found' }).waitFor({ state: 'detached' });
    // Dates are shown in the browser's local format (en-GB here), never 'N/A' for a new project.
    const row = projectsTable(page).getByRole('row').filter({ hasText: NAME });
    const cells = await row.getByRole('cell').allInnerTexts();
    const today = new Date().toLocaleDateString('en-GB', { timeZone: 'UTC' });
    // Files, Studies and Last upload (issue 36) stand between the name and the spec's dates.
    expect(cells.slice(1, 6)).toEqual(['0', '0', 'No uploads', today, today]);
    await captureScreen(page, 'projects-one-row');
    // Hovering a date shows its local date and time (rows changed on one day differ by the time).
    await row.getByRole('cell').nth(5).getByText(today, { exact: true }).hover();
    const tooltip = page.getByRole('tooltip');
    await tooltip.waitFor();
    expect(await tooltip.innerText()).toMatch(new RegExp(`^${escapeRegExp(today)}, \\d{2}:\\d{2}:\\d{2}$`));
    await captureScreen(page, 'projects-date-time');
    await moveAwayFromTooltips(page);
  });

  test('rename a project: the dialog starts from its name', async () => {
    const { page } = session;
    await page.getByRole('button', { name: `Edit project ${NAME}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Project' });
    const name = dialog.getByRole('textbox', { name: 'Project Name' });
    expect(await name.inputValue()).toBe(NAME);
    await captureScreen(page, 'project-edit-dialog');
    await name.fill(RENAMED);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await projectsTable(page).getByRole('link', { name: RENAMED, exact: true }).waitFor();
    expect(await shownNames(page)).toEqual([RENAMED]);
  });

  test('pagination: 5 rows by default, next page, 10 per page resets to the first page', async () => {
    const { page } = session;
    const { token } = await storedSession(page);
    for (let i = 1; i <= 6; i++) await apiCreateProject(portal.url, token!, `Series batch ${i}`);
    await page.reload();
    // Newest first: the six new ones fill the first page and push the renamed one to the second.
    await projectsTable(page).getByRole('link', { name: 'Series batch 6', exact: true }).waitFor();
    await page.getByText('1–5 of 7', { exact: true }).waitFor();
    expect(await shownNames(page)).toEqual(['Series batch 6', 'Series batch 5', 'Series batch 4', 'Series batch 3', 'Series batch 2']);
    await captureScreen(page, 'projects-list');
    await page.getByRole('button', { name: 'Go to next page' }).click();
    await page.getByText('6–7 of 7', { exact: true }).waitFor();
    // The server answers each page (issue 36): the rows follow the pager once it has.
    await expect.poll(() => shownNames(page)).toEqual(['Series batch 1', RENAMED]);

    await page.getByRole('combobox', { name: /Rows per page/ }).click();
    const options = await page.getByRole('option').allInnerTexts();
    expect(options).toEqual(['5', '10', '25']);
    await page.getByRole('option', { name: '10' }).click();
    await page.getByText('1–7 of 7', { exact: true }).waitFor();
    await expect.poll(() => shownNames(page)).toHaveLength(7);
  });

  test('on a phone each project is a card with its name, dates and actions in view, and nothing scrolls sideways', async () => {
    for (const mode of ['light', 'dark'] as const) {
      const { page, context } = await phoneSession(mode);
      const cards = page.getByRole('list', { name: 'Projects' }).getByRole('listitem');
      await cards.first().waitFor();
      expect(await page.getByRole('table').count()).toBe(0);
      expect(await cards.count()).toBe(5);
      for (const card of await cards.all()) {
        const name = await card.getByRole('link').innerText();
        await card.getByText(/^Date Created: \d{2}\/\d{2}\/\d{4}$/).waitFor();
        await card.getByText(/^Date Updated: \d{2}\/\d{2}\/\d{4}$/).waitFor();
        await expectInView(card.getByRole('link', { name, exact: true }), PHONE.width);
        await expectInView(card.getByRole('button', { name: `Edit project ${name}` }), PHONE.width);
        await expectInView(card.getByRole('button', { name: `Delete project ${name}` }), PHONE.width);
      }
      await expectNoSidewaysScroll(page);
      await captureScreen(page, `projects-phone-${mode}`);
      // The pager fits too, and the last card's actions work from the phone.
      await page.getByRole('button', { name: 'Go to next page' }).click();
      await page.getByText('6–7 of 7', { exact: true }).waitFor();
      await expectNoSidewaysScroll(page);
      const last = page.getByRole('listitem', { name: RENAMED });
      await last.getByRole('button', { name: `Edit project ${RENAMED}` }).click();
      const edit = page.getByRole('dialog', { name: 'Edit Project' });
      expect(await edit.getByRole('textbox', { name: 'Project Name' }).inputValue()).toBe(RENAMED);
      await expectNoSidewaysScroll(page);
      await captureScreen(page, `project-edit-phone-${mode}`);
      await edit.getByRole('button', { name: 'Cancel' }).click();
      await edit.waitFor({ state: 'detached' });
      await last.getByRole('button', { name: `Delete project ${RENAMED}` }).click();
      const confirm = page.getByRole('dialog', { name: 'Confirm Delete' });
      await confirm.getByText('Are you sure you want to delete this project?', { exact: true }).waitFor();
      await captureScreen(page, `project-delete-phone-${mode}`);
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'detached' });
      await context.close();
    }
  });

  test('delete a project through the confirmation dialog', async () => {
    const { page } = session;
    await page.getByRole('button', { name: `Delete project ${RENAMED}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm Delete' });
    await dialog.getByText('Are you sure you want to delete this project?', { exact: true }).waitFor();
    await captureScreen(page, 'project-delete-dialog');
    const held = await holdRequests(page, (url, method) => method === 'PUT' && url.pathname.startsWith('/api/v1/study-petitions-delete/'));
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await held.arrived;
    await dialog.getByRole('button', { name: 'Deleting...' }).waitFor();
    // The state is shown once, inside the dialog it came from, not by a second overlay above it.
    await dialog.getByRole('status').filter({ hasText: 'Deleting project...' }).waitFor();
    expect(await page.getByRole('status').count()).toBe(1);
    await captureScreen(page, 'project-deleting');
    held.release();
    await toast(page, 'Project deleted successfully').waitFor();
    await held.dispose();
    await dialog.waitFor({ state: 'detached' });
    await projectsTable(page).getByRole('link', { name: RENAMED, exact: true }).waitFor({ state: 'detached' });
    expect(await shownNames(page)).not.toContain(RENAMED);
    await captureScreen(page, 'projects-after-delete');
  });

  test('cancelling the delete dialog keeps the project', async () => {
    const { page } = session;
    await page.getByRole('button', { name: 'Delete project Series batch 1' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm Delete' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await shownNames(page)).toContain('Series batch 1');
  });

  test('a project name opens its detail screen, the breadcrumb leads back', async () => {
    const { page } = session;
    await page.getByRole('link', { name: 'Series batch 1', exact: true }).click();
    await page.waitForURL((url) => /^\/study\/\d+$/.test(url.pathname));
    await page.getByRole('heading', { name: 'Series batch 1', level: 1 }).waitFor();
    await page.getByText('0 files found', { exact: true }).waitFor();
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Projects' }).click();
    await waitForPath(page, '/home');
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
  });

  test('no screen threw an uncaught error', () => {
    expect(session.pageErrors).toEqual([]);
  });
});
