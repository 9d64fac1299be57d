// Which @modelcontextprotocol/conformance server scenarios apply to this server, per protocol
// revision, and why the others do not. The runner (conformance.ts) and its test read this table.

/** The protocol revisions this server negotiates and the suite has a frozen requirement set for. */
export const REVISIONS = ['2025-11-25', '2026-07-28'] as const;
export type Revision = (typeof REVISIONS)[number];

/**
 * Scenarios of the suite's requirement sets that exercise features this read-only catalogue
 * server deliberately does not have: each names the fixture tool, prompt or resource of the
 * suite's reference "everything" server, or what a stateless server cannot do. One list for both
 * revisions (a scenario keeps its name across revisions); a scenario in APPLICABLE for a revision
 * is applicable there whatever this list says.
 */
export const NOT_APPLICABLE: Record<string, string> = {
  'completion-complete': 'completes an argument of the fixture prompt test_prompt_with_arguments (ours: test/surface, e2e, interop)',
  'tools-call-simple-text': 'calls the fixture tool test_simple_text, which a catalogue server does not have',
  'tools-call-image': 'calls the fixture tool test_image_content; the catalogue has no images',
  'tools-call-audio': 'calls the fixture tool test_audio_content; the catalogue has no audio',
  'tools-call-embedded-resource': 'calls the fixture tool test_embedded_resource',
  'tools-call-mixed-content': 'calls the fixture tool test_multiple_content_types',
  'tools-call-with-logging': 'calls the fixture tool test_tool_with_logging (our tools send no log messages)',
  'tools-call-error': 'calls the fixture tool test_error_handling (our tool errors are covered by our own tests)',
  'tools-call-with-progress': 'calls the fixture tool test_tool_with_progress; our tools answer at once',
  'tools-call-sampling': 'calls the fixture tool test_sampling; a read-only data server never asks the client to sample',
  'tools-call-elicitation': 'calls the fixture tool test_elicitation; we never elicit input',
  'elicitation-sep1034-defaults': 'calls the fixture tool test_elicitation_sep1034_defaults; we never elicit input',
  'elicitation-sep1330-enums': 'calls the fixture tool test_elicitation_sep1330_enums; we never elicit input',
  'server-sse-multiple-streams':
    '2025-11-25 only (passes on 2026-07-28): opens its streams within a session, and a stateless server issues no session id (the suite warns, checks nothing)',
  'resources-read-text': 'reads the fixture resource test://static-text',
  'resources-read-binary': 'reads the fixture resource test://static-binary',
  'resources-templates-read': 'reads the fixture template test://template/{id}/data',
  'resources-subscribe':
    'no resources.subscribe: a stateless server has no stream to send resources/updated on (GET /mcp is 405); records change only on ingest',
  'resources-unsubscribe': 'no resources.subscribe (see resources-subscribe)',
  'prompts-get-simple': 'gets the fixture prompt test_simple_prompt (ours: test/surface.test.ts)',
  'prompts-get-with-args': 'gets the fixture prompt test_prompt_with_arguments',
  'prompts-get-embedded-resource': 'gets the fixture prompt test_prompt_with_embedded_resource',
  'prompts-get-with-image': 'gets the fixture prompt test_prompt_with_image',
  'json-schema-2020-12': 'calls the fixture tool json_schema_2020_12_tool',
  'server-sse-polling': 'calls the fixture tool test_reconnection, which closes its SSE stream mid-call (and needs a session)',

  'input-required-result-basic-elicitation':
    'calls the fixture tool test_input_required_result_elicitation; we never need input from the client',
  'input-required-result-basic-sampling': 'calls the fixture tool test_input_required_result_sampling; we never ask the client to sample',
  'input-required-result-basic-list-roots': 'calls the fixture tool test_input_required_result_list_roots; we never ask for roots',
  'input-required-result-request-state': 'calls the fixture tool test_input_required_result_request_state; we never need input',
  'input-required-result-multiple-input-requests': 'calls the fixture tool test_input_required_result_multiple_inputs; we never need input',
  'input-required-result-multi-round': 'calls a fixture tool that asks for input over several rounds; we never need input',
  'input-required-result-missing-input-response': 'calls the fixture tool test_input_required_result_elicitation; we never need input',
  'input-required-result-non-tool-request': 'gets the fixture prompt test_input_required_result_prompt; we never need input',
  'input-required-result-result-type': 'calls the fixture tool test_input_required_result_elicitation; we never need input',
  'input-required-result-tampered-state': 'needs a fixture tool that returns requestState; we never need input',
  'input-required-result-capability-check': 'calls the fixture tool test_input_required_result_capabilities; we never need input',
  'input-required-result-ignore-extra-params': 'calls the fixture tool test_input_required_result_elicitation; we never need input',
  'input-required-result-validate-input': 'calls the fixture tool test_input_required_result_elicitation; we never need input',
};

/**
 * Single checks of an applicable scenario that need a fixture of the reference server; the suite
 * itself reports them as "Not testable". They are shown but do not fail the run.
 */
export const NOT_APPLICABLE_CHECKS: Record<string, string> = {
  'sep-2575-server-rejects-undeclared-capability': 'needs the fixture diagnostic tool test_missing_capability',
  'sep-2575-missing-capability-http-400': 'needs the fixture diagnostic tool test_missing_capability',
  'sep-2575-http-server-no-independent-requests-on-stream': 'needs the fixture tool test_streaming_elicitation; we never elicit',
  'sep-2575-server-no-log-without-loglevel': 'needs the fixture tool test_logging_tool (our tools send no log messages)',
};

/** Scenarios each revision's server must pass (the rest are listed in NOT_APPLICABLE with the reason). */
export const APPLICABLE: Record<Revision, string[]> = {
  '2025-11-25': [
    'server-initialize',
    'ping',
    'logging-set-level',
    'tools-list',
    'resources-list',
    'prompts-list',
    'dns-rebinding-protection',
    'server-session-lifecycle',
  ],
  '2026-07-28': [
    'server-stateless',
    'tools-list',
    'resources-list',
    'prompts-list',
    'sep-2164-resource-not-found',
    'dns-rebinding-protection',
    'caching',
    'input-required-result-unsupported-methods',
    'server-sse-multiple-streams',
  ],
};

/** Scenarios outside a frozen requirement set that the suite lists for the revision: run them too. */
export const EXTRA: Record<Revision, string[]> = {
  '2025-11-25': ['server-session-lifecycle', 'json-schema-2020-12', 'server-sse-polling'],
  '2026-07-28': ['json-schema-2020-12'],
};
