// What other features use of projects: the signed-in user's list (the API tokens form picks from it).
export { useProjects } from './api/get-projects';
