//! The finalization transaction — verified publication of a completed plan (`docs/finalize.md`).
//!
//! ```text
//!  read state + candidate → lock → validate (every artifact, git) → marker → re-check
//!      → replace state.json → re-read + re-validate → receipt → journal → remove marker → unlock
//! ```
//!
//! The marker makes an interruption recoverable: from the moment `.finalizing.json` is in place,
//! a killed run is finished (or rolled back) by [`crate::dwp::publish::recover`], bound to the
//! candidate stored in the marker. The commit point of a run that is still alive is the rename
//! of state.json: an I/O error before it (writing the marker, the re-check of step 7, the
//! state's temp file) rolls back — marker and temp files removed, lock released, nothing
//! applied. After it, any failure (the re-check reading the plan or git, the receipt, the
//! marker's removal) is no plain error and no refusal: the publication is committed and the
//! marker stays for `planseal recover` to finish, so the run ends as applied but not confirmed
//! ([`Published::confirmation`] names what is left and the command that finishes it). At no
//! point does state.json say `completed` without a receipt or a marker next to it.
//!
//! Every step boundary is a named [`Step`]; the caller's hook sees each one (the demo stops its
//! child there), and builds with the `failpoints` feature crash there on request.

use super::candidate;
use super::files as store;
use super::marker::{self, Companion, MARKER_FILE, Marker, MarkerExtension};
use super::validate::{self, Validation, ValidationInput};
use crate::clock::Clock;
use crate::dwp::layout;
use crate::dwp::model::parse_json;
use crate::dwp::model::receipt::{AcceptedException, RECEIPT_FILE, Receipt};
use crate::jsonfmt;
use crate::report::{Finding, Refusal, RefusalKind};
use crate::write::{
    Confirmation, JournalEntry, Transaction, Unconfirmed, UnconfirmedStep, WriteError, Writer,
};
use planseal_recovery::hash::sha256_hex;
use std::path::{Path, PathBuf};

/// The step boundaries of the transaction, in order. Each is also a failpoint name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    /// The lock is taken; nothing else is written.
    AfterLock,
    /// The candidate passed every check under the lock; still only the lock is written.
    AfterValidation,
    /// The marker is durable: the commit point, after which an interruption needs `recover`.
    AfterMarker,
    /// state.json holds the candidate (replaced, or already equal on a re-seal).
    AfterStateRename,
    /// state.json was re-read and re-validated against the marker's hashes.
    AfterReverify,
    /// The receipt is written.
    AfterReceipt,
    /// The journal line is appended (best effort); the marker is about to be removed.
    BeforeMarkerRemoval,
    /// Published and sealed; only the lock is still held.
    AfterMarkerRemoval,
}

impl Step {
    /// Every step, in the order a run reaches them.
    pub const ALL: [Step; 8] = [
        Step::AfterLock,
        Step::AfterValidation,
        Step::AfterMarker,
        Step::AfterStateRename,
        Step::AfterReverify,
        Step::AfterReceipt,
        Step::BeforeMarkerRemoval,
        Step::AfterMarkerRemoval,
    ];

    /// The failpoint name (`finalize.after_marker`, …).
    pub fn name(self) -> &'static str {
        match self {
            Step::AfterLock => "finalize.after_lock",
            Step::AfterValidation => "finalize.after_validation",
            Step::AfterMarker => "finalize.after_marker",
            Step::AfterStateRename => "finalize.after_state_rename",
            Step::AfterReverify => "finalize.after_reverify",
            Step::AfterReceipt => "finalize.after_receipt",
            Step::BeforeMarkerRemoval => "finalize.before_marker_removal",
            Step::AfterMarkerRemoval => "finalize.after_marker_removal",
        }
    }

    /// True for the steps at which a marker is on disk (a crash there needs `recover`).
    pub fn marker_written(self) -> bool {
        !matches!(
            self,
            Step::AfterLock | Step::AfterValidation | Step::AfterMarkerRemoval
        )
    }
}

/// Where the candidate comes from.
#[derive(Debug, Clone)]
pub enum Candidate {
    /// The current state.json: the re-seal of a completed plan.
    Current,
    /// These exact bytes (read from `--candidate FILE`, or built by `update`).
    Bytes {
        /// The candidate state.json, published byte for byte.
        bytes: Vec<u8>,
        /// Where it came from, for messages: the `--candidate` path as given, or
        /// `update task N → STATUS`.
        origin: String,
    },
}

/// What the caller asks for.
#[derive(Debug, Clone)]
pub struct FinalizeRequest {
    /// The plan folder (`.dwp/plans/PLAN_x`), or its state.json.
    pub plan_dir: PathBuf,
    /// The state to publish.
    pub candidate: Candidate,
    /// SHA-256 the caller last read of state.json (`--expected-sha256`).
    pub expected_sha256: Option<String>,
    /// Run every check, write nothing.
    pub dry_run: bool,
    /// `--allow-dirty --reason TEXT`: accept a dirty work tree and record why.
    pub allow_dirty_reason: Option<String>,
    /// `--allow-unverified-git --reason TEXT`: seal although git could not be read, and record
    /// why.
    pub allow_unverified_git_reason: Option<String>,
    /// Where the candidate file lives (left out of the clean-tree check).
    pub candidate_path: Option<PathBuf>,
    /// The command that asked (`finalize`, `update`): journaled and written into the lock.
    pub operation: String,
    /// The journal line to write for the publication instead of the generic one: `update`
    /// journals its transition (task, from → to, agent, …) like every other transition.
    pub journal_entry: Option<JournalEntry>,
    /// Where the marker's `started_at`, the lock record and the journal line take their time
    /// (the caller's clock, so a fixed test clock reaches every timestamp written).
    pub clock: Clock,
    /// The candidate restores a state.json that is lost, does not parse, or reads completed but
    /// is rebuilt (`rebuild --write`): the on-disk bytes are only the state before, so a
    /// missing or unparseable file is no refusal and a completed one may be replaced. The
    /// candidate itself passes every check as always.
    pub restores_state: bool,
    /// The journal already holds this publication's line (`recover` after a finalizer killed
    /// between its journal line and the marker's removal): it is not written twice.
    pub already_journaled: bool,
    /// Plan files written inside the same transaction, after the marker and before state.json
    /// (`rebuild --write`: its PROGRESS.md entry): validated as they will be, recorded in the
    /// marker, rolled back with it.
    pub companions: Vec<Companion>,
}

impl FinalizeRequest {
    /// A request with the defaults: no snapshot check, not a dry run, no dirty-tree exception,
    /// operation `finalize`, the generic journal line, the system clock.
    pub fn new(plan_dir: impl Into<PathBuf>, candidate: Candidate) -> Self {
        Self {
            plan_dir: plan_dir.into(),
            candidate,
            expected_sha256: None,
            dry_run: false,
            allow_dirty_reason: None,
            allow_unverified_git_reason: None,
            candidate_path: None,
            operation: "finalize".into(),
            journal_entry: None,
            clock: Clock::system(),
            restores_state: false,
            already_journaled: false,
            companions: Vec::new(),
        }
    }
}

/// What a successful run did (or, with `dry_run`, would do).
#[derive(Debug, Clone)]
pub struct Published {
    /// The plan folder's name (`PLAN_x`).
    pub plan: String,
    /// The plan folder, canonicalised.
    pub plan_dir: PathBuf,
    /// The SHA-256 (hex) of state.json as it was read before the run.
    pub state_sha256_before: String,
    /// The SHA-256 (hex) of the candidate: the state published (the receipt's `state_sha256`).
    pub state_sha256: String,
    /// The artifact fingerprint sealed in the receipt.
    pub artifacts_sha256: String,
    /// state.json was replaced (false on a re-seal, where the bytes are already in place).
    pub state_written: bool,
    /// The candidate equalled the current bytes of an already-completed plan.
    pub resealed: bool,
    /// Nothing was written: the other fields say what a real run would publish.
    pub dry_run: bool,
    /// The receipt written (or, on a dry run, the one that would be).
    pub receipt: Receipt,
    /// The receipt's bytes as written.
    pub receipt_bytes: Vec<u8>,
    /// The `.finalizing.json` written during the run (and removed at its end); on a dry run, a
    /// marker with the two hashes only.
    pub marker_bytes: Vec<u8>,
    /// Advisories met on the way (tracked `.dwp/`, git not applicable, …).
    pub advisories: Vec<Finding>,
    /// What the run, past its commit point, could not confirm: a folder sync, the journal line,
    /// the lock release — or the rest of the publication, left with its marker for `planseal
    /// recover` ([`UnconfirmedStep::Unfinished`]).
    pub confirmation: Confirmation,
}

impl Published {
    /// The publication stopped after its commit point: the marker is left for `recover`.
    pub fn unfinished(&self) -> bool {
        self.confirmation
            .unconfirmed()
            .iter()
            .any(|u| u.step == UnconfirmedStep::Unfinished)
    }
}

/// Why the transaction stopped.
#[derive(Debug, thiserror::Error)]
pub enum FinalizeError {
    /// A rule said no; nothing was written (or, after the marker, the marker is left for
    /// `recover` — the refusal says so).
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The file system failed under us.
    #[error("{path}: {source}")]
    Io {
        /// The file the failing call was about.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

impl FinalizeError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }
    /// The refusal kind, when this is a refusal.
    pub fn kind(&self) -> Option<&str> {
        match self {
            FinalizeError::Refused(r) => Some(r.kind.as_str()),
            FinalizeError::Io { .. } => None,
        }
    }
}

impl From<WriteError> for FinalizeError {
    fn from(e: WriteError) -> Self {
        match e {
            WriteError::Refused(r) => FinalizeError::Refused(r),
            WriteError::Io { path, source, .. } => FinalizeError::Io { path, source },
        }
    }
}

/// A hook that sees every step boundary. The default one only evaluates the failpoints.
pub type StepHook<'a> = &'a mut dyn FnMut(Step);

/// Runs a step boundary: the caller's hook, then (in `failpoints` builds) the named crash point.
pub(crate) fn reach(step: Step, hook: &mut dyn FnMut(Step)) {
    hook(step);
    crash_point(step.name());
}

/// In builds with the `failpoints` feature, `FAILPOINTS="finalize.after_marker=return"`
/// ends the process at that point the way `kill -9` would (the store's crash points): no
/// unwinding, no cleanup, the lock and every half-done file stay as they are.
pub fn crash_point(name: &str) {
    planseal_recovery::store::crash_point(name);
}

/// Runs the whole transaction. On success the plan is published, sealed and
/// unlocked; on a refusal before the marker nothing but (briefly) the lock was written.
pub fn finalize(req: &FinalizeRequest, hook: StepHook<'_>) -> Result<Published, FinalizeError> {
    let plan_dir = store::plan_dir_of(&req.plan_dir)?;
    let state_path = layout::state_path(&plan_dir);
    let mut clock = req.clock.clone();

    // 1. state bytes and the caller's snapshot
    let state_bytes = store::read_state_before(&state_path, req.restores_state)?;
    let state_sha = sha256_hex(&state_bytes);
    if let Some(expected) = &req.expected_sha256
        && !expected.eq_ignore_ascii_case(&state_sha)
    {
        return Err(Refusal::new(
            RefusalKind::StaleSnapshot,
            format!(
                "{}: --expected-sha256 {expected} does not match the file's SHA-256 {state_sha}",
                state_path.display()
            ),
        )
        .hint("re-read state.json, check what changed, and pass its current SHA-256")
        .into());
    }

    // 2. an interrupted publication blocks everything but `recover`
    let marker_path = plan_dir.join(MARKER_FILE);
    if marker_path.exists() {
        return Err(marker_present(&plan_dir));
    }
    let target = layout::state_target(&plan_dir);
    check_write_targets(&target)?;

    // Published as the helper writes it; a candidate that is the current state in another
    // layout, or these very bytes, is a re-seal.
    // The candidate is parsed strictly once, here; its value serves the pre-checks, the
    // validation and the journal line (the serialisation of a strictly parsed value parses back
    // to that very value, so nothing downstream parses the candidate again).
    let (candidate_bytes, strict_value) = match &req.candidate {
        Candidate::Current => (state_bytes.clone(), parse_json(&state_bytes).ok()),
        Candidate::Bytes { bytes, .. } if *bytes == state_bytes => {
            (state_bytes.clone(), parse_json(&state_bytes).ok())
        }
        Candidate::Bytes { bytes, .. } => match parse_json(bytes) {
            Ok(value) => (
                jsonfmt::to_python_pretty_sized(&value, bytes.len()),
                Some(value),
            ),
            Err(_) => (
                candidate::published_bytes(bytes).unwrap_or_else(|| bytes.clone()),
                None,
            ),
        },
    };
    let candidate_origin = match &req.candidate {
        Candidate::Current => layout::STATE_FILE.to_string(),
        Candidate::Bytes { origin, .. } => origin.clone(),
    };
    let resealed = candidate_bytes == state_bytes;
    let parsed = precheck_candidate(
        &plan_dir,
        &state_bytes,
        &candidate_bytes,
        &candidate_origin,
        &req.candidate,
        req.restores_state,
        strict_value,
    )?;
    let strict = parsed.strict.then_some(&parsed.candidate_value);

    if req.dry_run {
        let validation = run_validation(&plan_dir, &candidate_bytes, strict, req)?;
        return Ok(published(
            &plan_dir,
            &state_sha,
            &candidate_bytes,
            validation,
            resealed,
            false,
            true,
        ));
    }

    // 3. the lock
    let tx = Writer::from_env().begin(&target, &req.operation, &clock.now_iso())?;
    reach(Step::AfterLock, hook);

    // 4. under the lock: unchanged, then every check
    let under_lock = store::read_state_before(&state_path, req.restores_state)?;
    if under_lock != state_bytes {
        tx.finish()?;
        return Err(state_changed(&state_path));
    }
    // A publication interrupted between our first look and the lock left its marker.
    if marker_path.exists() {
        tx.finish()?;
        return Err(marker_present(&plan_dir));
    }
    for c in &req.companions {
        let path = plan_dir.join(&c.file);
        if let Err(e) = tx.expect_unchanged(&path, c.before.as_deref()) {
            tx.finish()?;
            return Err(e.into());
        }
    }
    let validation = match run_validation(&plan_dir, &candidate_bytes, strict, req) {
        Ok(v) => v,
        Err(e) => {
            tx.finish()?;
            return Err(e);
        }
    };
    reach(Step::AfterValidation, hook);

    // 5–6. fingerprint is in the validation; the marker
    let marker = Marker {
        candidate_sha256: sha256_hex(&candidate_bytes),
        artifacts_sha256: validation.artifacts_sha256.clone(),
        planseal: Some(MarkerExtension {
            marker_version: marker::MARKER_VERSION,
            state_sha256_before: state_sha.clone(),
            tool_version: crate::TOOL_VERSION.to_string(),
            started_at: clock.now_iso(),
            candidate: String::from_utf8(candidate_bytes.clone()).map_err(|_| {
                Refusal::new(
                    RefusalKind::CandidateUnparseable,
                    format!("{candidate_origin}: the candidate is not UTF-8 text"),
                )
            })?,
            companions: req.companions.clone(),
        }),
    };
    let marker_bytes = marker.to_bytes();
    tx.replace(&marker_path, &marker_bytes)?;
    reach(Step::AfterMarker, hook);
    // The files published with state.json, before it; the marker lets `recover` finish them.
    for c in &req.companions {
        if let Err(e) = tx.replace(&plan_dir.join(&c.file), &c.after) {
            return Err(roll_back(tx, &plan_dir, &req.companions, e.into()));
        }
    }

    // 7. nothing moved while we validated. Until state.json is replaced, a failure rolls the
    // publication back: the marker goes, the lock is released, nothing is applied.
    let rechecked = read_fault("finalize.recheck_read", &state_path)
        .and_then(|()| store::read_state_before(&state_path, req.restores_state))
        .and_then(|again| {
            validate::recheck_fingerprint(&plan_dir, &validation.fingerprint_names)
                .map(|fp| (again, fp))
        });
    let (again, fp_again) = match rechecked {
        Ok(found) => found,
        Err(e) => return Err(roll_back(tx, &plan_dir, &req.companions, e)),
    };
    if again != state_bytes || fp_again != validation.artifacts_sha256 {
        return Err(roll_back(tx, &plan_dir, &req.companions, Refusal::new(
            RefusalKind::PlanChangedDuringValidation,
            format!(
                "{}: state.json or a fingerprinted file changed while the candidate was being validated; nothing was published",
                plan_dir.display()
            ),
        )
        .hint("wait for the other writer to finish, then run the same command again")
        .into()));
    }

    // Once state.json is replaced, whatever fails (an I/O error, a re-check that cannot read
    // what it needs) leaves the marker for `recover` and is reported as applied but not
    // confirmed — never as a plain error or a refusal, never as "nothing applied". Before, the
    // publication is rolled back.
    match publish_from_marker(
        &tx,
        &candidate_bytes,
        &marker,
        &validation,
        req,
        &mut clock,
        hook,
        Some(parsed),
    ) {
        Ok(()) => {}
        Err(Stopped {
            state_replaced: false,
            error,
        }) => return Err(roll_back(tx, &plan_dir, &req.companions, error)),
        Err(Stopped { error, .. }) => tx.note(unfinished(&plan_dir, &error)),
    }
    let confirmation = tx.close();
    let mut outcome = published(
        &plan_dir,
        &state_sha,
        &candidate_bytes,
        validation,
        resealed,
        !resealed,
        false,
    );
    outcome.marker_bytes = marker_bytes;
    outcome.confirmation = confirmation;
    Ok(outcome)
}

/// Where [`publish_from_marker`] stopped: before state.json was replaced (nothing of the
/// publication but its marker is on disk) or after (the publication is committed).
#[derive(Debug)]
pub(crate) struct Stopped {
    /// state.json holds the candidate: what is left is for `recover` to finish.
    pub state_replaced: bool,
    /// What failed.
    pub error: FinalizeError,
}

/// Rolls back a publication stopped before state.json was replaced: removes the marker
/// (each step already removed its own temp file) and releases the lock, then returns `error`,
/// so the run ends with nothing applied. When the marker itself cannot be removed, the error
/// says so and names the command that finishes the job.
fn roll_back(
    tx: Transaction<'_>,
    plan_dir: &Path,
    companions: &[Companion],
    error: FinalizeError,
) -> FinalizeError {
    let marker_path = plan_dir.join(MARKER_FILE);
    if let Err(e) = restore_companions(&tx, plan_dir, companions)
        .and_then(|()| tx.remove(&marker_path).map_err(FinalizeError::from))
    {
        return FinalizeError::io(
            &marker_path,
            std::io::Error::other(format!(
                "the publication stopped before state.json was replaced ({error}), and its marker could not be removed ({e}); run `planseal recover {}`",
                plan_dir.display()
            )),
        );
    }
    match tx.finish() {
        Ok(()) => error,
        Err(e) => e.into(),
    }
}

/// Puts every companion back to its bytes before the publication (removes one that did not
/// exist); one already as it was is left alone.
pub(crate) fn restore_companions(
    tx: &Transaction<'_>,
    plan_dir: &Path,
    companions: &[Companion],
) -> Result<(), FinalizeError> {
    for c in companions.iter().rev() {
        let path = plan_dir.join(&c.file);
        let now = tx.read(&path)?;
        if now == c.before {
            continue;
        }
        match &c.before {
            Some(bytes) => tx.replace(&path, bytes)?,
            None => tx.remove(&path)?,
        }
    }
    Ok(())
}

/// In `failpoints` builds, the fault point `name` (`finalize.recheck_read=return(EIO)`) fails
/// the read of `path` that follows it; a no-op otherwise.
fn read_fault(name: &str, path: &Path) -> Result<(), FinalizeError> {
    match planseal_recovery::store::io_fault(name) {
        Some(e) => Err(FinalizeError::io(path, e)),
        None => Ok(()),
    }
}

/// The publication is committed but not finished: the marker stays for `recover`.
pub(crate) fn unfinished(plan_dir: &Path, error: &FinalizeError) -> Unconfirmed {
    Unconfirmed::new(
        UnconfirmedStep::Unfinished,
        plan_dir.join(MARKER_FILE),
        error.to_string(),
    )
    .hint(format!(
        "the publication is committed: `planseal recover {}` finishes it",
        plan_dir.display()
    ))
}

/// Steps 8–11 with the marker already durable and the lock held: replace state.json (when it
/// differs), re-read and re-validate, write the receipt, journal, remove the marker. Shared by
/// `finalize` and the roll-forward of `recover`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn publish_from_marker(
    tx: &Transaction<'_>,
    candidate_bytes: &[u8],
    marker: &Marker,
    validation: &Validation,
    req: &FinalizeRequest,
    clock: &mut Clock,
    hook: &mut dyn FnMut(Step),
    parsed: Option<Parsed>,
) -> Result<(), Stopped> {
    let state_path = tx.target().path().to_path_buf();
    let before = store::read_state_before(&state_path, req.restores_state)
        .and_then(|before| {
            if before != candidate_bytes {
                tx.replace(&state_path, candidate_bytes)?;
            }
            Ok(before)
        })
        .map_err(|error| Stopped {
            state_replaced: false,
            error,
        })?;
    reach(Step::AfterStateRename, hook);
    seal_published(
        tx,
        candidate_bytes,
        &before,
        marker,
        validation,
        req,
        clock,
        hook,
        parsed,
    )
    .map_err(|error| Stopped {
        state_replaced: true,
        error,
    })
}

/// Steps 9–11, state.json already the candidate: re-read and re-validate, the receipt, the
/// journal line, the marker's removal.
#[allow(clippy::too_many_arguments)]
fn seal_published(
    tx: &Transaction<'_>,
    candidate_bytes: &[u8],
    before: &[u8],
    marker: &Marker,
    validation: &Validation,
    req: &FinalizeRequest,
    clock: &mut Clock,
    hook: &mut dyn FnMut(Step),
    parsed: Option<Parsed>,
) -> Result<(), FinalizeError> {
    let state_path = tx.target().path().to_path_buf();
    let plan_dir = state_path.parent().unwrap_or(Path::new("."));

    // 9. what is on disk now is exactly what was validated: state.json is re-read, every
    // fingerprinted file re-hashed; the markdown, unchanged by those hashes, is not re-checked.
    read_fault("finalize.reverify_read", &state_path)?;
    let published = store::read_state(&state_path)?;
    let (artifacts_now, failures) =
        validate::reverify_published(plan_dir, &published, candidate_bytes, validation)?;
    if artifacts_now != marker.artifacts_sha256 || !failures.is_empty() {
        return Err(Refusal::new(
            RefusalKind::PlanChangedAfterPublication,
            format!(
                "{}: after state.json was replaced, the plan no longer verifies (state {} / fingerprint {}); the marker stays",
                plan_dir.display(),
                sha256_hex(&published),
                artifacts_now
            ),
        )
        .hint(format!("inspect the plan, then run `planseal recover {}`", plan_dir.display()))
        .details(failures)
        .into());
    }
    reach(Step::AfterReverify, hook);

    // 10. the receipt
    let receipt = validation.receipt(&sha256_hex(candidate_bytes));
    tx.replace(&plan_dir.join(RECEIPT_FILE), &receipt.to_bytes())?;
    reach(Step::AfterReceipt, hook);

    // 11. journal, marker, lock
    let mut entry = match &req.journal_entry {
        // The caller computed its line from the bytes it built; the published bytes are the
        // candidate's serialisation, so its after-hash is theirs.
        Some(entry) => {
            let before = entry.before_sha256.clone();
            entry
                .clone()
                .hashes(before, Some(sha256_hex(candidate_bytes)))
        }
        None => {
            // The values parsed before the lock, when they are of these very bytes.
            let values = parsed.and_then(|p| p.into_values(before, candidate_bytes));
            publication_entry_of(
                plan_dir,
                &req.operation,
                before,
                candidate_bytes,
                values,
                clock,
            )
        }
    };
    record_exceptions(&mut entry, &validation.exceptions);
    entry = entry.with("receipt", RECEIPT_FILE);
    // The receipt is the evidence, and a journal line that cannot be written must not undo a
    // publication: it is reported as not confirmed. A publication the journal already holds
    // (recover finishing one) is not journaled twice.
    if !req.already_journaled {
        tx.journal_applied(&entry);
    }
    // A publication's line holds the whole state: freed off the critical path.
    crate::parallel::drop_later(entry);
    reach(Step::BeforeMarkerRemoval, hook);
    tx.remove(&plan_dir.join(MARKER_FILE))?;
    reach(Step::AfterMarkerRemoval, hook);
    Ok(())
}

/// Refuses (`symlink-escape`) before anything is written when the receipt's folder or the
/// journal would be written through a symlink leading out of the plan folder: the receipt and
/// the journal line are part of the publication, so it does not start.
pub(crate) fn check_write_targets(target: &crate::write::Target) -> Result<(), FinalizeError> {
    Ok(target.check_writable(&[RECEIPT_FILE])?)
}

/// The journal line of a publication no `update` transition describes (`finalize`, the
/// roll-forward of `recover`). When exactly one task changes status between the state
/// before and the candidate, the line names that task and its from → to (so `rebuild` can date
/// it); otherwise `task` is null and from → to are the plan's statuses.
pub(crate) fn publication_entry(
    plan_dir: &Path,
    operation: &str,
    before: &[u8],
    candidate: &[u8],
    clock: &mut Clock,
) -> JournalEntry {
    publication_entry_of(plan_dir, operation, before, candidate, None, clock)
}

/// The state before and the candidate as parsed before the lock (step 2), so that the journal
/// line of the publication does not parse them again.
#[derive(Debug)]
pub(crate) struct Parsed {
    before: Vec<u8>,
    before_value: Option<serde_json::Value>,
    candidate: Vec<u8>,
    candidate_value: serde_json::Value,
    /// `candidate_value` is the strict parse of the candidate's bytes.
    strict: bool,
}

impl Parsed {
    /// The two values, when they were parsed from `before` and `candidate` (the state before
    /// read under the lock is the one read first, or the run refused).
    fn into_values(
        self,
        before: &[u8],
        candidate: &[u8],
    ) -> Option<(serde_json::Value, serde_json::Value)> {
        let before_value = self.before_value?;
        (self.before == before && self.candidate == candidate)
            .then_some((before_value, self.candidate_value))
    }
}

/// [`publication_entry`] with the two states already parsed (`values`), or parsed now. The
/// published state goes into the line as it is: the values are moved, never copied.
fn publication_entry_of(
    plan_dir: &Path,
    operation: &str,
    before: &[u8],
    candidate: &[u8],
    values: Option<(serde_json::Value, serde_json::Value)>,
    clock: &mut Clock,
) -> JournalEntry {
    use serde_json::Value;
    let (old, new): (Value, Value) = values.unwrap_or_else(|| {
        (
            serde_json::from_slice(before).unwrap_or_default(),
            serde_json::from_slice(candidate).unwrap_or_default(),
        )
    });
    let task_status = |v: &Value| -> Vec<(Option<u64>, Value)> {
        v["tasks"]
            .as_array()
            .map(|tasks| {
                tasks
                    .iter()
                    .map(|t| (t["id"].as_u64(), t["status"].clone()))
                    .collect()
            })
            .unwrap_or_default()
    };
    let old_tasks = task_status(&old);
    let changed: Vec<_> = task_status(&new)
        .into_iter()
        .filter(|(id, status)| !old_tasks.iter().any(|(i, s)| i == id && s == status))
        .collect();
    let (task, from, to) = match changed.as_slice() {
        [(id, to)] => {
            let from = old_tasks
                .iter()
                .find(|(i, _)| i == id)
                .map(|(_, s)| s.clone())
                .unwrap_or_default();
            (*id, from, to.clone())
        }
        _ => (None, old["status"].clone(), new["status"].clone()),
    };
    crate::parallel::drop_later(old);
    let entry = JournalEntry::for_plan(clock.now_iso(), operation, &layout::plan_name(plan_dir))
        .transition(task, from, to)
        .hashes(Some(sha256_hex(before)), Some(sha256_hex(candidate)));
    // The whole published state, so that a replay of the journal reaches it.
    if before == candidate {
        entry
    } else {
        entry.with(
            "applied",
            serde_json::json!({
                "version": crate::dwp::decide::update::APPLIED_VERSION,
                "replaced": new,
            }),
        )
    }
}

/// Adds the exceptions the user accepted (`--allow-dirty --reason`) to a journal line: each
/// one under `forced`, and the reason under `reason` when the line has none of its own.
fn record_exceptions(entry: &mut JournalEntry, exceptions: &[AcceptedException]) {
    if exceptions.is_empty() {
        return;
    }
    entry.forced = exceptions
        .iter()
        .map(|e| serde_json::json!({"kind": e.kind, "reason": e.reason, "subjects": e.subjects}))
        .collect();
    if entry.reason.is_none() {
        entry.reason = Some(exceptions[0].reason.clone());
    }
}

fn run_validation(
    plan_dir: &Path,
    candidate_bytes: &[u8],
    candidate_value: Option<&serde_json::Value>,
    req: &FinalizeRequest,
) -> Result<Validation, FinalizeError> {
    let overlay: Vec<(String, Vec<u8>)> = req
        .companions
        .iter()
        .map(|c| (c.file.clone(), c.after.clone()))
        .collect();
    let validation = validate::validate_candidate_with(
        &ValidationInput {
            plan_dir,
            candidate: candidate_bytes,
            candidate_value,
            candidate_path: req.candidate_path.as_deref(),
            allow_dirty_reason: req.allow_dirty_reason.as_deref(),
            allow_unverified_git_reason: req.allow_unverified_git_reason.as_deref(),
        },
        &overlay,
    )?;
    if let Some(first) = validation.failures.first() {
        let count = validation.failures.len();
        let message = if count == 1 {
            format!("{}: {}", plan_dir.display(), first.message)
        } else {
            format!(
                "{}: the candidate cannot be published — {count} check(s) failed, first: {}",
                plan_dir.display(),
                first.message
            )
        };
        let hint = first.hint.clone().unwrap_or_else(|| {
            "fix the plan's markdown or state first; nothing was written".into()
        });
        return Err(Refusal::from_check(first, message)
            .hint(hint)
            .details(validation.failures.clone())
            .into());
    }
    Ok(validation)
}

/// The checks that need no lock and no artifact: the candidate parses, the on-disk state
/// parses, and a completed plan is only ever re-sealed with its own bytes.
fn precheck_candidate(
    plan_dir: &Path,
    state_bytes: &[u8],
    candidate_bytes: &[u8],
    origin: &str,
    source: &Candidate,
    restores_state: bool,
    strict_value: Option<serde_json::Value>,
) -> Result<Parsed, FinalizeError> {
    let strict = strict_value.is_some();
    let parse = || serde_json::from_slice::<serde_json::Value>(candidate_bytes);
    let candidate = strict_value.map_or_else(parse, Ok).map_err(|e| {
        Refusal::new(
            if matches!(source, Candidate::Current) {
                RefusalKind::StateUnparseable
            } else {
                RefusalKind::CandidateUnparseable
            },
            format!("{origin}: the candidate is not valid JSON ({e})"),
        )
        .hint("pass the complete state file the plan should be published with")
    })?;
    if restores_state && matches!(source, Candidate::Bytes { .. }) {
        // The state before is being replaced whatever it holds; the candidate is what is
        // checked, and it must be completed.
        if candidate.get("status").and_then(|s| s.as_str()) != Some("completed") {
            return Err(Refusal::new(
                RefusalKind::CandidateNotCompleted,
                format!("{origin}: the candidate is not completed"),
            )
            .hint("only a completed state is published through the finalization")
            .into());
        }
        return Ok(Parsed {
            before: state_bytes.to_vec(),
            before_value: None,
            candidate: candidate_bytes.to_vec(),
            candidate_value: candidate,
            strict,
        });
    }
    let state: serde_json::Value = serde_json::from_slice(state_bytes).map_err(|e| {
        Refusal::new(
            RefusalKind::StateUnparseable,
            format!(
                "{}: state.json does not parse ({e}); the plan check reads it",
                plan_dir.join(layout::STATE_FILE).display()
            ),
        )
        .hint("restore state.json (planseal rebuild regenerates it from the markdown and git)")
    })?;
    let state_completed = state.get("status").and_then(|s| s.as_str()) == Some("completed");
    let candidate_completed = candidate.get("status").and_then(|s| s.as_str()) == Some("completed");
    if matches!(source, Candidate::Current) && !candidate_completed {
        return Err(Refusal::new(
            RefusalKind::CandidateNotCompleted,
            format!(
                "{}: state.json is not completed, so there is nothing to re-seal",
                plan_dir.join(layout::STATE_FILE).display()
            ),
        )
        .hint("complete the last task with `planseal update … --status completed`, or pass --candidate FILE")
        .into());
    }
    if state_completed && candidate_bytes != state_bytes {
        let sealed = plan_dir.join(RECEIPT_FILE).exists();
        let differ = candidate::differences(&state, &candidate, 5);
        let what = if differ.is_empty() {
            "holds the same values in another layout".to_string()
        } else {
            format!("differs in {}", differ.join(", "))
        };
        return Err(Refusal::new(
            RefusalKind::CandidateMismatch,
            format!(
                "{}: state.json already reads completed ({}{}); the candidate {origin} {what}",
                plan_dir.display(),
                sha256_hex(state_bytes),
                if sealed { ", with a receipt" } else { ", not yet sealed by a receipt" },
            ),
        )
        .hint(if sealed {
            "re-seal without --candidate; to change a completed plan, reopen a task first"
        } else {
            "seal the completed state as it is with `planseal finalize PLAN` (no --candidate); to change it, reopen a task first"
        })
        .into());
    }
    Ok(Parsed {
        before: state_bytes.to_vec(),
        before_value: Some(state),
        candidate: candidate_bytes.to_vec(),
        candidate_value: candidate,
        strict,
    })
}

fn published(
    plan_dir: &Path,
    state_sha: &str,
    candidate_bytes: &[u8],
    validation: Validation,
    resealed: bool,
    state_written: bool,
    dry_run: bool,
) -> Published {
    let candidate_sha = sha256_hex(candidate_bytes);
    let receipt = validation.receipt(&candidate_sha);
    let marker = Marker {
        candidate_sha256: candidate_sha.clone(),
        artifacts_sha256: validation.artifacts_sha256.clone(),
        planseal: None,
    };
    Published {
        plan: layout::plan_name(plan_dir),
        plan_dir: plan_dir.to_path_buf(),
        state_sha256_before: state_sha.to_string(),
        state_sha256: candidate_sha,
        artifacts_sha256: validation.artifacts_sha256.clone(),
        state_written,
        resealed,
        dry_run,
        receipt_bytes: receipt.to_bytes(),
        receipt,
        marker_bytes: marker.to_bytes(),
        advisories: validation.advisories,
        confirmation: Confirmation::Confirmed,
    }
}

pub(crate) fn marker_present(plan_dir: &Path) -> FinalizeError {
    Refusal::new(
        RefusalKind::MarkerPresent,
        format!(
            "{}: interrupted finalization — {} is present; inspect the artifacts and recover before claiming completion",
            plan_dir.display(),
            MARKER_FILE
        ),
    )
    .hint(format!("run `planseal recover {}`", plan_dir.display()))
    .into()
}

pub(crate) fn state_changed(state_path: &Path) -> FinalizeError {
    Refusal::new(
        RefusalKind::StateChanged,
        format!(
            "{}: state.json changed between reading and locking; nothing was written",
            state_path.display()
        ),
    )
    .hint("another writer was at work; run the command again")
    .into()
}
