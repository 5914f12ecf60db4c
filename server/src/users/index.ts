// What other features may use of users: the repository auth signs people in with, the presenter, roles.
export type { UsersRepository, UserFilter } from './users.repository.js';
export { presentUser } from './user.presenter.js';
export { isRole, parseRole, roleName } from './roles.js';
