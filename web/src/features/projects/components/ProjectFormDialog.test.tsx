import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { aProject } from '../../../test/fixtures';
import { renderWithProviders } from '../../../test/render';
import { ProjectFormDialog } from './ProjectFormDialog';

function renderDialog(mode: 'create' | 'edit', study = aProject({ name: 'Brain MRI' })) {
  const handlers = { onAdd: vi.fn(), onEdit: vi.fn(), onClose: vi.fn() };
  return { ...renderWithProviders(<ProjectFormDialog open mode={mode} study={study} {...handlers} />), handlers };
}

describe('ProjectFormDialog', () => {
  it('creates with the trimmed name, then closes', async () => {
    const { user, handlers } = renderDialog('create');
    const name = screen.getByRole('textbox', { name: 'Project Name' });
    expect(name).toHaveValue('');
    expect(name).toHaveAttribute('placeholder', 'Eg: My favorite project');
    await user.type(name, '  Knee CT  ');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(handlers.onAdd).toHaveBeenCalledWith('Knee CT');
    expect(handlers.onEdit).not.toHaveBeenCalled();
    expect(handlers.onClose).toHaveBeenCalled();
  });

  it('requires a name after trimming and clears the message on typing', async () => {
    const { user, handlers } = renderDialog('create');
    await user.type(screen.getByRole('textbox', { name: 'Project Name' }), '   ');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByText('The name of the study is required')).toBeInTheDocument();
    expect(handlers.onAdd).not.toHaveBeenCalled();
    expect(handlers.onClose).not.toHaveBeenCalled();

    await user.type(screen.getByRole('textbox', { name: 'Project Name' }), 'x');
    expect(screen.queryByText('The name of the study is required')).not.toBeInTheDocument();
  });

  it('edits the study with its prefilled name replaced', async () => {
    const study = aProject({ id: 4, name: 'Brain MRI' });
    const { user, handlers } = renderDialog('edit', study);
    const name = screen.getByRole('textbox', { name: 'Project Name' });
    expect(name).toHaveValue('Brain MRI');
    await user.clear(name);
    await user.type(name, 'Brain MRI v2 ');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(handlers.onEdit).toHaveBeenCalledWith(study, 'Brain MRI v2');
    expect(handlers.onAdd).not.toHaveBeenCalled();
  });

  it('cancels without saving', async () => {
    const { user, handlers } = renderDialog('create');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(handlers.onClose).toHaveBeenCalled();
    expect(handlers.onAdd).not.toHaveBeenCalled();
  });
});
