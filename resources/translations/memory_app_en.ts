<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
    <context>
        <name>CategoryBarChart</name>
        <message numerus="yes">
            <source>{category}: %Ln memories</source>
            <translation>
                <numerusform>{category}: %Ln memory</numerusform>
                <numerusform>{category}: %Ln memories</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ChangePreview</name>
        <message numerus="yes">
            <source>The digest beside the summary of {category}; the %Ln memories it covers stay as they are.</source>
            <translation>
                <numerusform>The digest beside the summary of {category}; the memory it covers stays as it is.</numerusform>
                <numerusform>The digest beside the summary of {category}; the %Ln memories it covers stay as they are.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ChangesetPanel</name>
        <message numerus="yes">
            <source>{memory} (+%Ln duplicates)</source>
            <translation>
                <numerusform>{memory} (+%Ln duplicate)</numerusform>
                <numerusform>{memory} (+%Ln duplicates)</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln changes</source>
            <translation>
                <numerusform>%Ln change</numerusform>
                <numerusform>%Ln changes</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln accepted</source>
            <translation>
                <numerusform>%Ln accepted</numerusform>
                <numerusform>%Ln accepted</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln rejected</source>
            <translation>
                <numerusform>%Ln rejected</numerusform>
                <numerusform>%Ln rejected</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln pending</source>
            <translation>
                <numerusform>%Ln pending</numerusform>
                <numerusform>%Ln pending</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>A&amp;pply %Ln Accepted</source>
            <translation>
                <numerusform>A&amp;pply %Ln Accepted</numerusform>
                <numerusform>A&amp;pply %Ln Accepted</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ClaudeMdExporter</name>
        <message numerus="yes">
            <source>Already up to date: {path} holds these %Ln memories.</source>
            <translation>
                <numerusform>Already up to date: {path} holds this memory.</numerusform>
                <numerusform>Already up to date: {path} holds these %Ln memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Wrote %Ln memories to {path}.</source>
            <translation>
                <numerusform>Wrote %Ln memory to {path}.</numerusform>
                <numerusform>Wrote %Ln memories to {path}.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ConfidenceHistogram</name>
        <message numerus="yes">
            <source>Confidence {low}–{high}: %Ln memories</source>
            <translation>
                <numerusform>Confidence {low}–{high}: %Ln memory</numerusform>
                <numerusform>Confidence {low}–{high}: %Ln memories</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ConflictCard</name>
        <message numerus="yes">
            <source>used %Ln×</source>
            <translation>
                <numerusform>used %Ln×</numerusform>
                <numerusform>used %Ln×</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ConflictsView</name>
        <message numerus="yes">
            <source>…and %Ln more memories in this conflict.</source>
            <translation>
                <numerusform>…and %Ln more memory in this conflict.</numerusform>
                <numerusform>…and %Ln more memories in this conflict.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ContextView</name>
        <message numerus="yes">
            <source>{used} of %Ln tokens used</source>
            <translation>
                <numerusform>{used} of %Ln token used</numerusform>
                <numerusform>{used} of %Ln tokens used</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln memories</source>
            <translation>
                <numerusform>%Ln memory</numerusform>
                <numerusform>%Ln memories</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln open conflicts</source>
            <translation>
                <numerusform>%Ln open conflict</numerusform>
                <numerusform>%Ln open conflicts</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln tokens of the budget left</source>
            <translation>
                <numerusform>%Ln token of the budget left</numerusform>
                <numerusform>%Ln tokens of the budget left</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Copied the context (%Ln tokens).</source>
            <translation>
                <numerusform>Copied the context (%Ln token).</numerusform>
                <numerusform>Copied the context (%Ln tokens).</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ConversationHtml</name>
        <message numerus="yes">
            <source>… %Ln more lines</source>
            <translation>
                <numerusform>… %Ln more line</numerusform>
                <numerusform>… %Ln more lines</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>… %Ln more characters</source>
            <translation>
                <numerusform>… %Ln more character</numerusform>
                <numerusform>… %Ln more characters</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln turns</source>
            <translation>
                <numerusform>%Ln turn</numerusform>
                <numerusform>%Ln turns</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln memories</source>
            <translation>
                <numerusform>%Ln memory</numerusform>
                <numerusform>%Ln memories</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln secrets removed: {kinds}</source>
            <translation>
                <numerusform>%Ln secret removed: {kinds}</numerusform>
                <numerusform>%Ln secrets removed: {kinds}</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln private keys</source>
            <translation>
                <numerusform>%Ln private key</numerusform>
                <numerusform>%Ln private keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln JSON web tokens</source>
            <translation>
                <numerusform>%Ln JSON web token</numerusform>
                <numerusform>%Ln JSON web tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln anthropic keys</source>
            <translation>
                <numerusform>%Ln anthropic key</numerusform>
                <numerusform>%Ln anthropic keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln openai keys</source>
            <translation>
                <numerusform>%Ln openai key</numerusform>
                <numerusform>%Ln openai keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln AWS keys</source>
            <translation>
                <numerusform>%Ln AWS key</numerusform>
                <numerusform>%Ln AWS keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln AWS secret keys</source>
            <translation>
                <numerusform>%Ln AWS secret key</numerusform>
                <numerusform>%Ln AWS secret keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln github tokens</source>
            <translation>
                <numerusform>%Ln github token</numerusform>
                <numerusform>%Ln github tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln gitlab tokens</source>
            <translation>
                <numerusform>%Ln gitlab token</numerusform>
                <numerusform>%Ln gitlab tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln slack tokens</source>
            <translation>
                <numerusform>%Ln slack token</numerusform>
                <numerusform>%Ln slack tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln slack webhooks</source>
            <translation>
                <numerusform>%Ln slack webhook</numerusform>
                <numerusform>%Ln slack webhooks</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln google api keys</source>
            <translation>
                <numerusform>%Ln google api key</numerusform>
                <numerusform>%Ln google api keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln stripe keys</source>
            <translation>
                <numerusform>%Ln stripe key</numerusform>
                <numerusform>%Ln stripe keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln npm tokens</source>
            <translation>
                <numerusform>%Ln npm token</numerusform>
                <numerusform>%Ln npm tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln pypi tokens</source>
            <translation>
                <numerusform>%Ln pypi token</numerusform>
                <numerusform>%Ln pypi tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln huggingface tokens</source>
            <translation>
                <numerusform>%Ln huggingface token</numerusform>
                <numerusform>%Ln huggingface tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln sendgrid keys</source>
            <translation>
                <numerusform>%Ln sendgrid key</numerusform>
                <numerusform>%Ln sendgrid keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln digitalocean tokens</source>
            <translation>
                <numerusform>%Ln digitalocean token</numerusform>
                <numerusform>%Ln digitalocean tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln twilio keys</source>
            <translation>
                <numerusform>%Ln twilio key</numerusform>
                <numerusform>%Ln twilio keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln azure storage keys</source>
            <translation>
                <numerusform>%Ln azure storage key</numerusform>
                <numerusform>%Ln azure storage keys</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln bearer tokens</source>
            <translation>
                <numerusform>%Ln bearer token</numerusform>
                <numerusform>%Ln bearer tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln basic-auth credentials</source>
            <translation>
                <numerusform>%Ln basic-auth credential</numerusform>
                <numerusform>%Ln basic-auth credentials</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln passwords</source>
            <translation>
                <numerusform>%Ln password</numerusform>
                <numerusform>%Ln passwords</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln secrets</source>
            <translation>
                <numerusform>%Ln secret</numerusform>
                <numerusform>%Ln secrets</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln tokens</source>
            <translation>
                <numerusform>%Ln token</numerusform>
                <numerusform>%Ln tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln API keys</source>
            <translation>
                <numerusform>%Ln API key</numerusform>
                <numerusform>%Ln API keys</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ConversationList</name>
        <message numerus="yes">
            <source>{shown} of %Ln conversations</source>
            <translation>
                <numerusform>{shown} of %Ln conversation</numerusform>
                <numerusform>{shown} of %Ln conversations</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln conversations</source>
            <translation>
                <numerusform>%Ln conversation</numerusform>
                <numerusform>%Ln conversations</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ConversationSummary</name>
        <message numerus="yes">
            <source>Summary in %Ln chunks</source>
            <translation>
                <numerusform>Summary in %Ln chunk</numerusform>
                <numerusform>Summary in %Ln chunks</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>CountsText</name>
        <message numerus="yes">
            <source>%Ln memories · last import {when}</source>
            <translation>
                <numerusform>%Ln memory · last import {when}</numerusform>
                <numerusform>%Ln memories · last import {when}</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>DashboardView</name>
        <message numerus="yes">
            <source>%Ln active memories: the ones search and the assistant's context use ({pinned} pinned).</source>
            <translation>
                <numerusform>%Ln active memory: the one search and the assistant's context use ({pinned} pinned).</numerusform>
                <numerusform>%Ln active memories: the ones search and the assistant's context use ({pinned} pinned).</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln extraction runs</source>
            <translation>
                <numerusform>%Ln extraction run</numerusform>
                <numerusform>%Ln extraction runs</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln requests</source>
            <translation>
                <numerusform>%Ln request</numerusform>
                <numerusform>%Ln requests</numerusform>
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
            <source>Writes %Ln memories to {path}; {dropped} left out by the size cap; {conflicted} in unresolved conflicts left out.</source>
            <translation>
                <numerusform>Writes %Ln memory to {path}; {dropped} left out by the size cap; {conflicted} in unresolved conflicts left out.</numerusform>
                <numerusform>Writes %Ln memories to {path}; {dropped} left out by the size cap; {conflicted} in unresolved conflicts left out.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>DropWords</name>
        <message numerus="yes">
            <source>%Ln files</source>
            <translation>
                <numerusform>%Ln file</numerusform>
                <numerusform>%Ln files</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln folders</source>
            <translation>
                <numerusform>%Ln folder</numerusform>
                <numerusform>%Ln folders</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Drop to import %Ln folders</source>
            <translation>
                <numerusform>Drop to import %Ln folder</numerusform>
                <numerusform>Drop to import %Ln folders</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Drop to import %Ln files</source>
            <translation>
                <numerusform>Drop to import %Ln file</numerusform>
                <numerusform>Drop to import %Ln files</numerusform>
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
        <name>EnrichAction</name>
        <message numerus="yes">
            <source>Claude read episode #{id} (%Ln tokens).</source>
            <translation>
                <numerusform>Claude read episode #{id} (%Ln token).</numerusform>
                <numerusform>Claude read episode #{id} (%Ln tokens).</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>EpisodesView</name>
        <message numerus="yes">
            <source>The newest %Ln episodes of {total}</source>
            <translation>
                <numerusform>The newest %Ln episode of {total}</numerusform>
                <numerusform>The newest %Ln episodes of {total}</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln episodes</source>
            <translation>
                <numerusform>%Ln episode</numerusform>
                <numerusform>%Ln episodes</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln sessions</source>
            <translation>
                <numerusform>%Ln session</numerusform>
                <numerusform>%Ln sessions</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln turns</source>
            <translation>
                <numerusform>%Ln turn</numerusform>
                <numerusform>%Ln turns</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln milestones</source>
            <translation>
                <numerusform>%Ln milestone</numerusform>
                <numerusform>%Ln milestones</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln problems</source>
            <translation>
                <numerusform>%Ln problem</numerusform>
                <numerusform>%Ln problems</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln files touched</source>
            <translation>
                <numerusform>%Ln file touched</numerusform>
                <numerusform>%Ln files touched</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln memories learnt</source>
            <translation>
                <numerusform>%Ln memory learnt</numerusform>
                <numerusform>%Ln memories learnt</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ImportSummary</name>
        <message numerus="yes">
            <source>Imported %Ln conversations</source>
            <translation>
                <numerusform>Imported %Ln conversation</numerusform>
                <numerusform>Imported %Ln conversations</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln memories</source>
            <translation>
                <numerusform>%Ln memory</numerusform>
                <numerusform>%Ln memories</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln duplicates reinforced</source>
            <translation>
                <numerusform>%Ln duplicate reinforced</numerusform>
                <numerusform>%Ln duplicates reinforced</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln errors</source>
            <translation>
                <numerusform>%Ln error</numerusform>
                <numerusform>%Ln errors</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln unreadable lines</source>
            <translation>
                <numerusform>%Ln unreadable line</numerusform>
                <numerusform>%Ln unreadable lines</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>InjectionsPanel</name>
        <message numerus="yes">
            <source>%Ln memories given</source>
            <translation>
                <numerusform>%Ln memory given</numerusform>
                <numerusform>%Ln memories given</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>MainWindow</name>
        <message numerus="yes">
            <source>Undid the last change to %Ln memories.</source>
            <translation>
                <numerusform>Undid the last change to %Ln memory.</numerusform>
                <numerusform>Undid the last change to %Ln memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Redid the change to %Ln memories.</source>
            <translation>
                <numerusform>Redid the change to %Ln memory.</numerusform>
                <numerusform>Redid the change to %Ln memories.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>MaintenanceRunner</name>
        <message numerus="yes">
            <source>{job}: applied %Ln changes</source>
            <translation>
                <numerusform>{job}: applied %Ln change</numerusform>
                <numerusform>{job}: applied %Ln changes</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>{job}: %Ln changes to review</source>
            <translation>
                <numerusform>{job}: %Ln change to review</numerusform>
                <numerusform>{job}: %Ln changes to review</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>MaintenanceScheduler</name>
        <message numerus="yes">
            <source>Importing %Ln new sessions</source>
            <translation>
                <numerusform>Importing %Ln new session</numerusform>
                <numerusform>Importing %Ln new sessions</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Imported %Ln new sessions</source>
            <translation>
                <numerusform>Imported %Ln new session</numerusform>
                <numerusform>Imported %Ln new sessions</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>{imported}; %Ln wait for the next run</source>
            <translation>
                <numerusform>{imported}; %Ln waits for the next run</numerusform>
                <numerusform>{imported}; %Ln wait for the next run</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Extracting %Ln pending conversations again</source>
            <translation>
                <numerusform>Extracting %Ln pending conversation again</numerusform>
                <numerusform>Extracting %Ln pending conversations again</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Extracted {done} of %Ln pending conversations</source>
            <translation>
                <numerusform>Extracted {done} of %Ln pending conversation</numerusform>
                <numerusform>Extracted {done} of %Ln pending conversations</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>{extracted}; %Ln still pending: {reason}</source>
            <translation>
                <numerusform>{extracted}; %Ln still pending: {reason}</numerusform>
                <numerusform>{extracted}; %Ln still pending: {reason}</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>MaintenanceView</name>
        <message numerus="yes">
            <source>Applied {applied}; %Ln changes skipped: the memories changed since the run proposed it.</source>
            <translation>
                <numerusform>Applied {applied}; %Ln change skipped: the memories changed since the run proposed it.</numerusform>
                <numerusform>Applied {applied}; %Ln changes skipped: the memories changed since the run proposed it.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln changes</source>
            <translation>
                <numerusform>%Ln change</numerusform>
                <numerusform>%Ln changes</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Applied %Ln changes.</source>
            <translation>
                <numerusform>Applied %Ln change.</numerusform>
                <numerusform>Applied %Ln changes.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Undid the maintenance changes to %Ln memories.</source>
            <translation>
                <numerusform>Undid the maintenance changes to %Ln memory.</numerusform>
                <numerusform>Undid the maintenance changes to %Ln memories.</numerusform>
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
            <source>%Ln memories selected: use Pin, Move to, Archive or Delete.</source>
            <translation>
                <numerusform>%Ln memory selected: use Pin, Move to, Archive or Delete.</numerusform>
                <numerusform>%Ln memories selected: use Pin, Move to, Archive or Delete.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln selected</source>
            <translation>
                <numerusform>%Ln selected</numerusform>
                <numerusform>%Ln selected</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Deleted %Ln memories.</source>
            <translation>
                <numerusform>Deleted %Ln memory.</numerusform>
                <numerusform>Deleted %Ln memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Kept %Ln memories.</source>
            <translation>
                <numerusform>Kept %Ln memory.</numerusform>
                <numerusform>Kept %Ln memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Pinned %Ln memories.</source>
            <translation>
                <numerusform>Pinned %Ln memory.</numerusform>
                <numerusform>Pinned %Ln memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Unpinned %Ln memories.</source>
            <translation>
                <numerusform>Unpinned %Ln memory.</numerusform>
                <numerusform>Unpinned %Ln memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Moved to {category}: %Ln memories.</source>
            <translation>
                <numerusform>Moved to {category}: %Ln memory.</numerusform>
                <numerusform>Moved to {category}: %Ln memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Archived %Ln memories.</source>
            <translation>
                <numerusform>Archived %Ln memory.</numerusform>
                <numerusform>Archived %Ln memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Unarchived %Ln memories.</source>
            <translation>
                <numerusform>Unarchived %Ln memory.</numerusform>
                <numerusform>Unarchived %Ln memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Merged “{source}” into “{target}”: moved %Ln memories.</source>
            <translation>
                <numerusform>Merged “{source}” into “{target}”: moved %Ln memory.</numerusform>
                <numerusform>Merged “{source}” into “{target}”: moved %Ln memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Undid the last change to %Ln memories.</source>
            <translation>
                <numerusform>Undid the last change to %Ln memory.</numerusform>
                <numerusform>Undid the last change to %Ln memories.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Published %Ln memories: they go to your team with the next sync.</source>
            <translation>
                <numerusform>Published %Ln memory: they go to your team with the next sync.</numerusform>
                <numerusform>Published %Ln memories: they go to your team with the next sync.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln memories are personal again.</source>
            <translation>
                <numerusform>%Ln memory is personal again.</numerusform>
                <numerusform>%Ln memories are personal again.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>MemoryEditor</name>
        <message numerus="yes">
            <source>seen %Ln×</source>
            <translation>
                <numerusform>seen %Ln×</numerusform>
                <numerusform>seen %Ln×</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>MergeCategoryDialog</name>
        <message numerus="yes">
            <source>Move the %Ln memories of “{name}” (and any it keeps archived, superseded or deleted) into another category, then remove “{name}”. Its summary joins the other one; Edit ▸ Undo takes the merge back.</source>
            <translation>
                <numerusform>Move the %Ln memory of “{name}” (and any it keeps archived, superseded or deleted) into another category, then remove “{name}”. Its summary joins the other one; Edit ▸ Undo takes the merge back.</numerusform>
                <numerusform>Move the %Ln memories of “{name}” (and any it keeps archived, superseded or deleted) into another category, then remove “{name}”. Its summary joins the other one; Edit ▸ Undo takes the merge back.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>PredictedPanel</name>
        <message numerus="yes">
            <source>%Ln memories predicted</source>
            <translation>
                <numerusform>%Ln memory predicted</numerusform>
                <numerusform>%Ln memories predicted</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>PublishDialog</name>
        <message numerus="yes">
            <source>%Ln memories will be shared with your team.</source>
            <translation>
                <numerusform>%Ln memory will be shared with your team.</numerusform>
                <numerusform>%Ln memories will be shared with your team.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Nothing can be published: %Ln memories are held back.</source>
            <translation>
                <numerusform>Nothing can be published: %Ln memory is held back.</numerusform>
                <numerusform>Nothing can be published: %Ln memories are held back.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln secrets taken out by the redaction re-check</source>
            <translation>
                <numerusform>%Ln secret taken out by the redaction re-check</numerusform>
                <numerusform>%Ln secrets taken out by the redaction re-check</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>RunFigures</name>
        <message numerus="yes">
            <source>%Ln changes applied</source>
            <translation>
                <numerusform>%Ln change applied</numerusform>
                <numerusform>%Ln changes applied</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln changes to review</source>
            <translation>
                <numerusform>%Ln change to review</numerusform>
                <numerusform>%Ln changes to review</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln stale changes skipped</source>
            <translation>
                <numerusform>%Ln stale change skipped</numerusform>
                <numerusform>%Ln stale changes skipped</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln new sessions</source>
            <translation>
                <numerusform>%Ln new session</numerusform>
                <numerusform>%Ln new sessions</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln imported</source>
            <translation>
                <numerusform>%Ln imported</numerusform>
                <numerusform>%Ln imported</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln left for next time</source>
            <translation>
                <numerusform>%Ln left for next time</numerusform>
                <numerusform>%Ln left for next time</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln duplicate groups</source>
            <translation>
                <numerusform>%Ln duplicate group</numerusform>
                <numerusform>%Ln duplicate groups</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln contradictions</source>
            <translation>
                <numerusform>%Ln contradiction</numerusform>
                <numerusform>%Ln contradictions</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln to archive</source>
            <translation>
                <numerusform>%Ln to archive</numerusform>
                <numerusform>%Ln to archive</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln categories to compress</source>
            <translation>
                <numerusform>%Ln category to compress</numerusform>
                <numerusform>%Ln categories to compress</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln invalid memories</source>
            <translation>
                <numerusform>%Ln invalid memory</numerusform>
                <numerusform>%Ln invalid memories</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>SchedulePanel</name>
        <message numerus="yes">
            <source>every %Ln days</source>
            <translation>
                <numerusform>every %Ln day</numerusform>
                <numerusform>every %Ln days</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>SettingsView</name>
        <message numerus="yes">
            <source>When Memory Curator starts and while it is open, sessions in {folder} and {codex_folder} that have been quiet for %Ln minutes are imported, at most {limit} at a time. Off: import them from Sources yourself.</source>
            <translation>
                <numerusform>When Memory Curator starts and while it is open, sessions in {folder} and {codex_folder} that have been quiet for %Ln minute are imported, at most {limit} at a time. Off: import them from Sources yourself.</numerusform>
                <numerusform>When Memory Curator starts and while it is open, sessions in {folder} and {codex_folder} that have been quiet for %Ln minutes are imported, at most {limit} at a time. Off: import them from Sources yourself.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>TeamSyncTimer</name>
        <message numerus="yes">
            <source>%Ln team conflicts to decide in Conflicts</source>
            <translation>
                <numerusform>%Ln team conflict to decide in Conflicts</numerusform>
                <numerusform>%Ln team conflicts to decide in Conflicts</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>TierRows</name>
        <message numerus="yes">
            <source>%Ln tokens</source>
            <translation>
                <numerusform>%Ln token</numerusform>
                <numerusform>%Ln tokens</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln tokens used of this tier's {share}% share ({allowance}); a tier that leaves some of its share unused passes it on</source>
            <translation>
                <numerusform>%Ln token used of this tier's {share}% share ({allowance}); a tier that leaves some of its share unused passes it on</numerusform>
                <numerusform>%Ln tokens used of this tier's {share}% share ({allowance}); a tier that leaves some of its share unused passes it on</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>TimeWords</name>
        <message numerus="yes">
            <source>%Ln days ago</source>
            <translation>
                <numerusform>%Ln day ago</numerusform>
                <numerusform>%Ln days ago</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>in %Ln days</source>
            <translation>
                <numerusform>in %Ln day</numerusform>
                <numerusform>in %Ln days</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>TrayAnnouncer</name>
        <message numerus="yes">
            <source>%Ln new conflicts to resolve</source>
            <translation>
                <numerusform>%Ln new conflict to resolve</numerusform>
                <numerusform>%Ln new conflicts to resolve</numerusform>
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
            <source>Memories extracted per week over the last %Ln weeks (weeks start on Monday)</source>
            <translation>
                <numerusform>Memories extracted per week over the last week (weeks start on Monday)</numerusform>
                <numerusform>Memories extracted per week over the last %Ln weeks (weeks start on Monday)</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Week of {week}: %Ln memories</source>
            <translation>
                <numerusform>Week of {week}: %Ln memory</numerusform>
                <numerusform>Week of {week}: %Ln memories</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>WelcomeWords</name>
        <message numerus="yes">
            <source>%Ln sessions</source>
            <translation>
                <numerusform>%Ln session</numerusform>
                <numerusform>%Ln sessions</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln projects</source>
            <translation>
                <numerusform>%Ln project</numerusform>
                <numerusform>%Ln projects</numerusform>
            </translation>
        </message>
    </context>
</TS>
