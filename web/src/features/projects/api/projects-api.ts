import type { TProject } from '@portal/contract';
import { apiClient } from '../../../lib/api-client';

type DataOf<T> = { data: T[] };

/** Spec §4: a new project starts valid with status 'Pendant'. */
export const NEW_PROJECT_STATUS = 'Pendant';

export async function listProjects(): Promise<TProject[]> {
  const { data } = await apiClient.get<DataOf<TProject>>('/study-petitions');
  return data.data;
}

export async function getProject(id: number): Promise<TProject | null> {
  const { data } = await apiClient.get<DataOf<TProject>>(`/study-petitions/${id}`);
  return data.data[0] ?? null;
}

export async function createProject(name: string): Promise<TProject | null> {
  const { data } = await apiClient.post<DataOf<TProject>>('/study-petitions', { name, valid: true, status: NEW_PROJECT_STATUS });
  return data.data[0] ?? null;
}

export async function renameProject(project: TProject, name: string): Promise<TProject | null> {
  const { data } = await apiClient.put<DataOf<TProject>>(`/study-petitions/${project.id}`, { ...project, name });
  return data.data[0] ?? null;
}

export async function deleteProject(id: number): Promise<void> {
  await apiClient.put(`/study-petitions-delete/${id}`);
}
