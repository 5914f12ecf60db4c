// The studies feature's public face: the project page shows this view beside its files.
export { StudiesView } from './components/StudiesView';
