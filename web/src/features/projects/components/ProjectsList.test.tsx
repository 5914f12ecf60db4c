// The projects list as the server finds it (issue 36, item 4): what the page asks for when the user
// searches, sorts, pages and filters by company, and what it shows of the answer.
import { ROLES, type TRole } from '@portal/contract';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { SessionProvider } from '../../auth';
import { fakeApi } from '../../../test/fake-api';
import { answerProjects, asListed } from '../../../test/fake-projects';
import { aProject, aUser } from '../../../test/fixtures';
import { renderAt } from '../../../test/render';
import ProjectsPage from './ProjectsPage';

const ACME = Array.from({ length: 7 }, (_, i) => asListed(aProject({ id: i + 1, name: `Acme ${i + 1}`, company_id: 7 }), { files: i, studies: i % 3 }));
const BETA = [asListed(aProject({ id: 20, name: 'Beta cardiology', company_id: 8 }), { companyname: 'Beta Clinics', files: 4, studies: 1, last_upload_at: '2026-03-04T10:00:00Z' })];
const COMPANIES = [
  { id: 7, companyname: 'Acme Imaging' },
  { id: 8, companyname: 'Beta Clinics' },
];

function showAs(role: TRole) {
  localStorage.setItem('token', 'tok-1');
  localStorage.setItem('user', JSON.stringify(aUser({ role })));
  const everyCompany = role === ROLES.SysUser || role === ROLES.SysAdmin;
  const api = fakeApi({
    'GET /study-petitions': (call) => answerProjects(everyCompany ? [...ACME, ...BETA] : ACME, call),
    'GET /study-petitions-companies': { status: 200, data: { data: everyCompany ? COMPANIES : COMPANIES.slice(0, 1) } },
  });
  const view = renderAt([{ path: '/home', element: <SessionProvider><ProjectsPage /></SessionProvider> }], '/home');
  const asked = () => api.callsTo('GET', '/study-petitions').map((c) => c.params);
  return { ...view, api, asked };
}

const table = () => screen.getByRole('table', { name: 'Projects' });
const names = () => within(table()).getAllByRole('row').slice(1).map((row) => within(row).getAllByRole('cell')[0]!.textContent);

describe('the projects list, found by the server', () => {
  it('asks for the first page of 5, newest first, and shows each project’s counts', async () => {
    const { asked, api } = showAs(ROLES.CompanyAdmin);
    await screen.findByRole('link', { name: 'Acme 7' });
    expect(asked()[0]).toEqual({ page: 1, per_page: 5 });
    expect(names()).toEqual(['Acme 7', 'Acme 6', 'Acme 5', 'Acme 4', 'Acme 3']);
    const cells = within(within(table()).getAllByRole('row')[1]!).getAllByRole('cell').map((c) => c.textContent);
    expect(cells.slice(1, 4)).toEqual(['6', '0', 'No uploads']);
    // A company user has no company to choose, and the list is not asked for one.
    expect(screen.queryByRole('combobox', { name: 'Company' })).not.toBeInTheDocument();
    expect(screen.queryByRole('columnheader', { name: 'Company' })).not.toBeInTheDocument();
    expect(api.callsTo('GET', '/study-petitions-companies')).toHaveLength(0);
    expect(screen.getByText('1–5 of 7')).toBeInTheDocument();
  });

  it('searches by name once typing pauses, from the first page', async () => {
    const { user, asked } = showAs(ROLES.User);
    await screen.findByRole('link', { name: 'Acme 7' });
    await user.click(screen.getByRole('button', { name: 'Go to next page' }));
    await screen.findByRole('link', { name: 'Acme 1' });
    await user.type(screen.getByRole('searchbox', { name: 'Search projects' }), ' acme 2 ');
    await waitFor(() => expect(names()).toEqual(['Acme 2']));
    expect(asked().at(-1)).toEqual({ q: 'acme 2', page: 1, per_page: 5 });
    await user.clear(screen.getByRole('searchbox', { name: 'Search projects' }));
    await user.type(screen.getByRole('searchbox', { name: 'Search projects' }), 'nothing like it');
    expect(await screen.findByText('No projects match the search. Change or clear it to see more projects.')).toBeInTheDocument();
    // A search that finds nothing is not the empty state of a company without projects.
    expect(screen.queryByText('No projects found')).not.toBeInTheDocument();
  });

  it('sorts by every column header, ascending then descending, from the first page', async () => {
    const { user, asked } = showAs(ROLES.SysAdmin);
    await screen.findByRole('link', { name: 'Beta cardiology' });
    const sorts: Array<[string, string]> = [
      ['Name', 'name'],
      ['Company', 'company'],
      ['Files', 'files'],
      ['Studies', 'studies'],
      ['Last upload', 'last_upload_at'],
      ['Date Created', 'created_at'],
      ['Date Updated', 'updated_at'],
    ];
    for (const [label, sort] of sorts) {
      const header = within(table()).getByRole('button', { name: label });
      await user.click(header);
      await waitFor(() => expect(asked().at(-1)).toEqual({ sort, order: 'asc', page: 1, per_page: 5 }));
      await user.click(within(table()).getByRole('button', { name: label }));
      await waitFor(() => expect(asked().at(-1)).toEqual({ sort, order: 'desc', page: 1, per_page: 5 }));
    }
    // Every project here was updated at the same time: ties go by id in the same direction.
    await waitFor(() => expect(names()[0]).toBe('Beta cardiology'));
  });

  it('lets a SysAdmin filter by company, with the company beside each project', async () => {
    const { user, asked } = showAs(ROLES.SysAdmin);
    await screen.findByRole('link', { name: 'Beta cardiology' });
    expect(within(table()).getAllByRole('row')[1]).toHaveTextContent('Beta Clinics');
    await user.click(screen.getByRole('combobox', { name: 'Company' }));
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['All companies', 'Acme Imaging', 'Beta Clinics']);
    await user.click(screen.getByRole('option', { name: 'Beta Clinics' }));
    await waitFor(() => expect(names()).toEqual(['Beta cardiology']));
    expect(asked().at(-1)).toEqual({ company_id: 8, page: 1, per_page: 5 });
    await user.click(screen.getByRole('combobox', { name: 'Company' }));
    await user.click(screen.getByRole('option', { name: 'All companies' }));
    await waitFor(() => expect(names()).toHaveLength(5));
    expect(asked().at(-1)).toEqual({ page: 1, per_page: 5 });
  });
});
