// What other features may use of the review (issue 35): a file's review beside its status, the
// project's rules line, and the accept/reject dialog.
export { ReviewStatus } from './components/ReviewStatus';
export { RulesLine } from './components/RulesLine';
export { RuleOutcomes } from './components/RuleOutcomes';
export { default as ReviewDialog } from './components/ReviewDialog';
