// The projects screen: empty state, create, rename and delete through the dialogs, pagination.
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { apiCreateProject } from '../src/api.js';
import { captureScreen, launchBrowser, openSession, type Session } from '../src/browser.js';
import { startPortal, type Portal } from '../src/portal.js';
import { tearDownSuite } from '../src/suite.js';
import { holdRequests, overlay, signIn, storedSession, toast, waitForPath } from '../src/ui.js';

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
    expect(headers).toEqual(['Name', 'Date Created', 'Date Updated', 'Actions']);
    await captureScreen(page, 'projects-empty');
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
    expect(cells.slice(1, 3)).toEqual([today, today]);
    await captureScreen(page, 'projects-one-row');
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
    expect(await shownNames(page)).toEqual(['Series batch 1', RENAMED]);

    await page.getByRole('combobox', { name: /Rows per page/ }).click();
    const options = await page.getByRole('option').allInnerTexts();
    expect(options).toEqual(['5', '10', '25']);
    await page.getByRole('option', { name: '10' }).click();
    await page.getByText('1–7 of 7', { exact: true }).waitFor();
    expect(await shownNames(page)).toHaveLength(7);
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
