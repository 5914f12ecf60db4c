// What other features show of the account feature: the password fields and the spec §5 checklist,
// reused where a password is chosen without the change-password dialog (a reset link's page).
export { PasswordChecklist } from './components/PasswordChecklist';
export { PasswordField } from './components/PasswordField';
export { passwordIsValid, PASSWORDS_DO_NOT_MATCH, validateNewPassword } from './password-rules';
