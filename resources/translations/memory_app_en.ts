<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
    <context>
        <name>CategoryBarChart</name>
        <message numerus="yes">
            <source>{category}: %n memories</source>
            <translation>
                <numerusform>{category}: %n memory</numerusform>
                <numerusform>{category}: %n memories</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ChangePreview</name>
        <message numerus="yes">
            <source>The digest beside the summary of {category}; the %n memories it covers stay as they are.</source>
            <translation>
                <numerusform>The digest beside the summary of {category}; the memory it covers stays as it is.</numerusform>
                <numerusform>The digest beside the summary of {category}; the %n memories it covers stay as they are.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ChangesetPanel</name>
        <message numerus="yes">
            <source>{memory} (+%n duplicates)</source>
            <translation>
                <numerusform>{memory} (+%n duplicate)</numerusform>
                <numerusform>{memory} (+%n duplicates)</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n changes</source>
            <translation>
                <numerusform>%n change</numerusform>
                <numerusform>%n changes</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n accepted</source>
            <translation>
                <numerusform>%n accepted</numerusform>
                <numerusform>%n accepted</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n rejected</source>
            <translation>
                <numerusform>%n rejected</numerusform>
                <numerusform>%n rejected</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n pending</source>
            <translation>
                <numerusform>%n pending</numerusform>
                <numerusform>%n pending</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>A&amp;pply %n Accepted</source>
            <translation>
                <numerusform>A&amp;pply %n Accepted</numerusform>
                <numerusform>A&amp;pply %n Accepted</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ClaudeMdExporter</name>
        <message numerus="yes">
            <source>Already up to date: {path} holds these %n memories.</source>
            <translation>
                <numerusform>Already up to date: {path} holds this memory.</numerusform>
                <numerusform>Already up to date: {path} holds these %n memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Wrote %n memories to {path}.</source>
            <translation>
                <numerusform>Wrote %n memory to {path}.</numerusform>
                <numerusform>Wrote %n memories to {path}.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ConfidenceHistogram</name>
        <message numerus="yes">
            <source>Confidence {low}–{high}: %n memories</source>
            <translation>
                <numerusform>Confidence {low}–{high}: %n memory</numerusform>
                <numerusform>Confidence {low}–{high}: %n memories</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ConflictCard</name>
        <message numerus="yes">
            <source>used %n×</source>
            <translation>
                <numerusform>used %n×</numerusform>
                <numerusform>used %n×</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ConflictsView</name>
        <message numerus="yes">
            <source>…and %n more memories in this conflict.</source>
            <translation>
                <numerusform>…and %n more memory in this conflict.</numerusform>
                <numerusform>…and %n more memories in this conflict.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ContextView</name>
        <message numerus="yes">
            <source>{used} of %n tokens used</source>
            <translation>
                <numerusform>{used} of %n token used</numerusform>
                <numerusform>{used} of %n tokens used</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n memories</source>
            <translation>
                <numerusform>%n memory</numerusform>
                <numerusform>%n memories</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n open conflicts</source>
            <translation>
                <numerusform>%n open conflict</numerusform>
                <numerusform>%n open conflicts</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n tokens of the budget left</source>
            <translation>
                <numerusform>%n token of the budget left</numerusform>
                <numerusform>%n tokens of the budget left</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Copied the context (%n tokens).</source>
            <translation>
                <numerusform>Copied the context (%n token).</numerusform>
                <numerusform>Copied the context (%n tokens).</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ConversationHtml</name>
        <message numerus="yes">
            <source>… %n more lines</source>
            <translation>
                <numerusform>… %n more line</numerusform>
                <numerusform>… %n more lines</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>… %n more characters</source>
            <translation>
                <numerusform>… %n more character</numerusform>
                <numerusform>… %n more characters</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n turns</source>
            <translation>
                <numerusform>%n turn</numerusform>
                <numerusform>%n turns</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n memories</source>
            <translation>
                <numerusform>%n memory</numerusform>
                <numerusform>%n memories</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n secrets removed: {kinds}</source>
            <translation>
                <numerusform>%n secret removed: {kinds}</numerusform>
                <numerusform>%n secrets removed: {kinds}</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n private keys</source>
            <translation>
                <numerusform>%n private key</numerusform>
                <numerusform>%n private keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n JSON web tokens</source>
            <translation>
                <numerusform>%n JSON web token</numerusform>
                <numerusform>%n JSON web tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n anthropic keys</source>
            <translation>
                <numerusform>%n anthropic key</numerusform>
                <numerusform>%n anthropic keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n openai keys</source>
            <translation>
                <numerusform>%n openai key</numerusform>
                <numerusform>%n openai keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n AWS keys</source>
            <translation>
                <numerusform>%n AWS key</numerusform>
                <numerusform>%n AWS keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n AWS secret keys</source>
            <translation>
                <numerusform>%n AWS secret key</numerusform>
                <numerusform>%n AWS secret keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n github tokens</source>
            <translation>
                <numerusform>%n github token</numerusform>
                <numerusform>%n github tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n gitlab tokens</source>
            <translation>
                <numerusform>%n gitlab token</numerusform>
                <numerusform>%n gitlab tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n slack tokens</source>
            <translation>
                <numerusform>%n slack token</numerusform>
                <numerusform>%n slack tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n slack webhooks</source>
            <translation>
                <numerusform>%n slack webhook</numerusform>
                <numerusform>%n slack webhooks</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n google api keys</source>
            <translation>
                <numerusform>%n google api key</numerusform>
                <numerusform>%n google api keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n stripe keys</source>
            <translation>
                <numerusform>%n stripe key</numerusform>
                <numerusform>%n stripe keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n npm tokens</source>
            <translation>
                <numerusform>%n npm token</numerusform>
                <numerusform>%n npm tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n pypi tokens</source>
            <translation>
                <numerusform>%n pypi token</numerusform>
                <numerusform>%n pypi tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n huggingface tokens</source>
            <translation>
                <numerusform>%n huggingface token</numerusform>
                <numerusform>%n huggingface tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n sendgrid keys</source>
            <translation>
                <numerusform>%n sendgrid key</numerusform>
                <numerusform>%n sendgrid keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n digitalocean tokens</source>
            <translation>
                <numerusform>%n digitalocean token</numerusform>
                <numerusform>%n digitalocean tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n twilio keys</source>
            <translation>
                <numerusform>%n twilio key</numerusform>
                <numerusform>%n twilio keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n azure storage keys</source>
            <translation>
                <numerusform>%n azure storage key</numerusform>
                <numerusform>%n azure storage keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n bearer tokens</source>
            <translation>
                <numerusform>%n bearer token</numerusform>
                <numerusform>%n bearer tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n basic-auth credentials</source>
            <translation>
                <numerusform>%n basic-auth credential</numerusform>
                <numerusform>%n basic-auth credentials</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n passwords</source>
            <translation>
                <numerusform>%n password</numerusform>
                <numerusform>%n passwords</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n secrets</source>
            <translation>
                <numerusform>%n secret</numerusform>
                <numerusform>%n secrets</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n tokens</source>
            <translation>
                <numerusform>%n token</numerusform>
                <numerusform>%n tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n API keys</source>
            <translation>
                <numerusform>%n API key</numerusform>
                <numerusform>%n API keys</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ConversationList</name>
        <message numerus="yes">
            <source>{shown} of %n conversations</source>
            <translation>
                <numerusform>{shown} of %n conversation</numerusform>
                <numerusform>{shown} of %n conversations</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n conversations</source>
            <translation>
                <numerusform>%n conversation</numerusform>
                <numerusform>%n conversations</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>CountsText</name>
        <message numerus="yes">
            <source>%n memories · last import {when}</source>
            <translation>
                <numerusform>%n memory · last import {when}</numerusform>
                <numerusform>%n memories · last import {when}</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>DashboardView</name>
        <message numerus="yes">
            <source>%n active memories: the ones search and the assistant's context use ({pinned} pinned).</source>
            <translation>
                <numerusform>%n active memory: the one search and the assistant's context use ({pinned} pinned).</numerusform>
                <numerusform>%n active memories: the ones search and the assistant's context use ({pinned} pinned).</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n extraction runs</source>
            <translation>
                <numerusform>%n extraction run</numerusform>
                <numerusform>%n extraction runs</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n requests</source>
            <translation>
                <numerusform>%n request</numerusform>
                <numerusform>%n requests</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>{count} tokens</source>
            <translation>
                <numerusform>{count} token</numerusform>
                <numerusform>{count} tokens</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>DiffDialog</name>
        <message numerus="yes">
            <source>Writes %n memories to {path}; {dropped} left out by the size cap; {conflicted} in unresolved conflicts left out.</source>
            <translation>
                <numerusform>Writes %n memory to {path}; {dropped} left out by the size cap; {conflicted} in unresolved conflicts left out.</numerusform>
                <numerusform>Writes %n memories to {path}; {dropped} left out by the size cap; {conflicted} in unresolved conflicts left out.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>DropWords</name>
        <message numerus="yes">
            <source>%n files</source>
            <translation>
                <numerusform>%n file</numerusform>
                <numerusform>%n files</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n folders</source>
            <translation>
                <numerusform>%n folder</numerusform>
                <numerusform>%n folders</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Drop to import %n folders</source>
            <translation>
                <numerusform>Drop to import %n folder</numerusform>
                <numerusform>Drop to import %n folders</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Drop to import %n files</source>
            <translation>
                <numerusform>Drop to import %n file</numerusform>
                <numerusform>Drop to import %n files</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>{names} are not files on this computer</source>
            <translation>
                <numerusform>{names} is not a file on this computer</numerusform>
                <numerusform>{names} are not files on this computer</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ImportSummary</name>
        <message numerus="yes">
            <source>Imported %n conversations</source>
            <translation>
                <numerusform>Imported %n conversation</numerusform>
                <numerusform>Imported %n conversations</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n memories</source>
            <translation>
                <numerusform>%n memory</numerusform>
                <numerusform>%n memories</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n duplicates reinforced</source>
            <translation>
                <numerusform>%n duplicate reinforced</numerusform>
                <numerusform>%n duplicates reinforced</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n errors</source>
            <translation>
                <numerusform>%n error</numerusform>
                <numerusform>%n errors</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n unreadable lines</source>
            <translation>
                <numerusform>%n unreadable line</numerusform>
                <numerusform>%n unreadable lines</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>InjectionsPanel</name>
        <message numerus="yes">
            <source>%n memories given</source>
            <translation>
                <numerusform>%n memory given</numerusform>
                <numerusform>%n memories given</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>MainWindow</name>
        <message numerus="yes">
            <source>Undid the last change to %n memories.</source>
            <translation>
                <numerusform>Undid the last change to %n memory.</numerusform>
                <numerusform>Undid the last change to %n memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Redid the change to %n memories.</source>
            <translation>
                <numerusform>Redid the change to %n memory.</numerusform>
                <numerusform>Redid the change to %n memories.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>MaintenanceRunner</name>
        <message numerus="yes">
            <source>{job}: applied %n changes</source>
            <translation>
                <numerusform>{job}: applied %n change</numerusform>
                <numerusform>{job}: applied %n changes</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>{job}: %n changes to review</source>
            <translation>
                <numerusform>{job}: %n change to review</numerusform>
                <numerusform>{job}: %n changes to review</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>MaintenanceScheduler</name>
        <message numerus="yes">
            <source>Importing %n new Claude Code sessions</source>
            <translation>
                <numerusform>Importing %n new Claude Code session</numerusform>
                <numerusform>Importing %n new Claude Code sessions</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Imported %n new Claude Code sessions</source>
            <translation>
                <numerusform>Imported %n new Claude Code session</numerusform>
                <numerusform>Imported %n new Claude Code sessions</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>{imported}; %n wait for the next run</source>
            <translation>
                <numerusform>{imported}; %n waits for the next run</numerusform>
                <numerusform>{imported}; %n wait for the next run</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Extracting %n pending conversations again</source>
            <translation>
                <numerusform>Extracting %n pending conversation again</numerusform>
                <numerusform>Extracting %n pending conversations again</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Extracted {done} of %n pending conversations</source>
            <translation>
                <numerusform>Extracted {done} of %n pending conversation</numerusform>
                <numerusform>Extracted {done} of %n pending conversations</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>{extracted}; %n still pending: {reason}</source>
            <translation>
                <numerusform>{extracted}; %n still pending: {reason}</numerusform>
                <numerusform>{extracted}; %n still pending: {reason}</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>MaintenanceView</name>
        <message numerus="yes">
            <source>Applied {applied}; %n changes skipped: the memories changed since the run proposed it.</source>
            <translation>
                <numerusform>Applied {applied}; %n change skipped: the memories changed since the run proposed it.</numerusform>
                <numerusform>Applied {applied}; %n changes skipped: the memories changed since the run proposed it.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n changes</source>
            <translation>
                <numerusform>%n change</numerusform>
                <numerusform>%n changes</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Applied %n changes.</source>
            <translation>
                <numerusform>Applied %n change.</numerusform>
                <numerusform>Applied %n changes.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Undid the maintenance changes to %n memories.</source>
            <translation>
                <numerusform>Undid the maintenance changes to %n memory.</numerusform>
                <numerusform>Undid the maintenance changes to %n memories.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>MemoriesView</name>
        <message numerus="yes">
            <source>{count} memories held for review</source>
            <translation>
                <numerusform>{count} memory held for review</numerusform>
                <numerusform>{count} memories held for review</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>{count} archived memories</source>
            <translation>
                <numerusform>{count} archived memory</numerusform>
                <numerusform>{count} archived memories</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>{count} superseded memories</source>
            <translation>
                <numerusform>{count} superseded memory</numerusform>
                <numerusform>{count} superseded memories</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>{count} deleted memories</source>
            <translation>
                <numerusform>{count} deleted memory</numerusform>
                <numerusform>{count} deleted memories</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>{count} invalid memories</source>
            <translation>
                <numerusform>{count} invalid memory</numerusform>
                <numerusform>{count} invalid memories</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>{count} memories of any status</source>
            <translation>
                <numerusform>{count} memory of any status</numerusform>
                <numerusform>{count} memories of any status</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>{count} memories</source>
            <translation>
                <numerusform>{count} memory</numerusform>
                <numerusform>{count} memories</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n memories selected: use Pin, Move to, Archive or Delete.</source>
            <translation>
                <numerusform>%n memory selected: use Pin, Move to, Archive or Delete.</numerusform>
                <numerusform>%n memories selected: use Pin, Move to, Archive or Delete.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n selected</source>
            <translation>
                <numerusform>%n selected</numerusform>
                <numerusform>%n selected</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Deleted %n memories.</source>
            <translation>
                <numerusform>Deleted %n memory.</numerusform>
                <numerusform>Deleted %n memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Kept %n memories.</source>
            <translation>
                <numerusform>Kept %n memory.</numerusform>
                <numerusform>Kept %n memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Pinned %n memories.</source>
            <translation>
                <numerusform>Pinned %n memory.</numerusform>
                <numerusform>Pinned %n memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Unpinned %n memories.</source>
            <translation>
                <numerusform>Unpinned %n memory.</numerusform>
                <numerusform>Unpinned %n memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Moved to {category}: %n memories.</source>
            <translation>
                <numerusform>Moved to {category}: %n memory.</numerusform>
                <numerusform>Moved to {category}: %n memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Archived %n memories.</source>
            <translation>
                <numerusform>Archived %n memory.</numerusform>
                <numerusform>Archived %n memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Unarchived %n memories.</source>
            <translation>
                <numerusform>Unarchived %n memory.</numerusform>
                <numerusform>Unarchived %n memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Merged “{source}” into “{target}”: moved %n memories.</source>
            <translation>
                <numerusform>Merged “{source}” into “{target}”: moved %n memory.</numerusform>
                <numerusform>Merged “{source}” into “{target}”: moved %n memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Undid the last change to %n memories.</source>
            <translation>
                <numerusform>Undid the last change to %n memory.</numerusform>
                <numerusform>Undid the last change to %n memories.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>MemoryEditor</name>
        <message numerus="yes">
            <source>seen %n×</source>
            <translation>
                <numerusform>seen %n×</numerusform>
                <numerusform>seen %n×</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>MergeCategoryDialog</name>
        <message numerus="yes">
            <source>Move the %n memories of “{name}” (and any it keeps archived, superseded or deleted) into another category, then remove “{name}”. Its summary joins the other one; Edit ▸ Undo takes the merge back.</source>
            <translation>
                <numerusform>Move the %n memory of “{name}” (and any it keeps archived, superseded or deleted) into another category, then remove “{name}”. Its summary joins the other one; Edit ▸ Undo takes the merge back.</numerusform>
                <numerusform>Move the %n memories of “{name}” (and any it keeps archived, superseded or deleted) into another category, then remove “{name}”. Its summary joins the other one; Edit ▸ Undo takes the merge back.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>RunFigures</name>
        <message numerus="yes">
            <source>%n changes applied</source>
            <translation>
                <numerusform>%n change applied</numerusform>
                <numerusform>%n changes applied</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n changes to review</source>
            <translation>
                <numerusform>%n change to review</numerusform>
                <numerusform>%n changes to review</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n stale changes skipped</source>
            <translation>
                <numerusform>%n stale change skipped</numerusform>
                <numerusform>%n stale changes skipped</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n new sessions</source>
            <translation>
                <numerusform>%n new session</numerusform>
                <numerusform>%n new sessions</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n imported</source>
            <translation>
                <numerusform>%n imported</numerusform>
                <numerusform>%n imported</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n left for next time</source>
            <translation>
                <numerusform>%n left for next time</numerusform>
                <numerusform>%n left for next time</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n duplicate groups</source>
            <translation>
                <numerusform>%n duplicate group</numerusform>
                <numerusform>%n duplicate groups</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n contradictions</source>
            <translation>
                <numerusform>%n contradiction</numerusform>
                <numerusform>%n contradictions</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n to archive</source>
            <translation>
                <numerusform>%n to archive</numerusform>
                <numerusform>%n to archive</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n categories to compress</source>
            <translation>
                <numerusform>%n category to compress</numerusform>
                <numerusform>%n categories to compress</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n invalid memories</source>
            <translation>
                <numerusform>%n invalid memory</numerusform>
                <numerusform>%n invalid memories</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>SchedulePanel</name>
        <message numerus="yes">
            <source>every %n days</source>
            <translation>
                <numerusform>every %n day</numerusform>
                <numerusform>every %n days</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>SettingsView</name>
        <message numerus="yes">
            <source>When Memory Curator starts and while it is open, sessions in {folder} that have been quiet for %n minutes are imported, at most {limit} at a time. Off: import them from Sources yourself.</source>
            <translation>
                <numerusform>When Memory Curator starts and while it is open, sessions in {folder} that have been quiet for %n minute are imported, at most {limit} at a time. Off: import them from Sources yourself.</numerusform>
                <numerusform>When Memory Curator starts and while it is open, sessions in {folder} that have been quiet for %n minutes are imported, at most {limit} at a time. Off: import them from Sources yourself.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>TierRows</name>
        <message numerus="yes">
            <source>%n tokens</source>
            <translation>
                <numerusform>%n token</numerusform>
                <numerusform>%n tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n tokens used of this tier's {share}% share ({allowance}); a tier that leaves some of its share unused passes it on</source>
            <translation>
                <numerusform>%n token used of this tier's {share}% share ({allowance}); a tier that leaves some of its share unused passes it on</numerusform>
                <numerusform>%n tokens used of this tier's {share}% share ({allowance}); a tier that leaves some of its share unused passes it on</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>TimeWords</name>
        <message numerus="yes">
            <source>%n days ago</source>
            <translation>
                <numerusform>%n day ago</numerusform>
                <numerusform>%n days ago</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>in %n days</source>
            <translation>
                <numerusform>in %n day</numerusform>
                <numerusform>in %n days</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>TrayAnnouncer</name>
        <message numerus="yes">
            <source>%n new conflicts to resolve</source>
            <translation>
                <numerusform>%n new conflict to resolve</numerusform>
                <numerusform>%n new conflicts to resolve</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>UsageWords</name>
        <message numerus="yes">
            <source>Injected {count} times, cited {cited}, ignored {ignored}</source>
            <translation>
                <numerusform>Injected once, cited {cited}, ignored {ignored}</numerusform>
                <numerusform>Injected {count} times, cited {cited}, ignored {ignored}</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>{usage} · {count} not judged yet</source>
            <translation>
                <numerusform>{usage} · {count} not judged yet</numerusform>
                <numerusform>{usage} · {count} not judged yet</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>WeeklyAddedChart</name>
        <message numerus="yes">
            <source>Memories extracted per week over the last %n weeks (weeks start on Monday)</source>
            <translation>
                <numerusform>Memories extracted per week over the last week (weeks start on Monday)</numerusform>
                <numerusform>Memories extracted per week over the last %n weeks (weeks start on Monday)</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Week of {week}: %n memories</source>
            <translation>
                <numerusform>Week of {week}: %n memory</numerusform>
                <numerusform>Week of {week}: %n memories</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>WelcomeWords</name>
        <message numerus="yes">
            <source>%n sessions</source>
            <translation>
                <numerusform>%n session</numerusform>
                <numerusform>%n sessions</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n projects</source>
            <translation>
                <numerusform>%n project</numerusform>
                <numerusform>%n projects</numerusform>
            </translation>
        </message>
    </context>
</TS>
