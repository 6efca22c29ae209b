//! Our known-answer check of the valence method, laid out: its claims, dose-response tests,
//! absolute values and separations as tables, and REPORT.md's section. The claims, the check
//! and its history are lmbias-papers' `known_answer`.

use lmbias_data::valence::Group;
use lmbias_metrics::bootstrap::ConfidenceInterval;
use lmbias_metrics::sign_flip::{MAX_EXACT_PAIRS, SignFlipOptions, SignFlipTest};
use lmbias_papers::known_answer::{CLAIMS_FILE, DoseResponse, HISTORY, KnownAnswer, Verdict};

use crate::table::Table;

/// Three decimals, or two significant digits below 0.001.
fn format_p(p: f64) -> String {
    if p >= 0.001 {
        format!("{p:.3}")
    } else {
        format!("{p:.1e}")
    }
}

fn ci(i: &ConfidenceInterval) -> String {
    format!("[{:.3}, {:.3}]", i.lower, i.upper)
}

/// How p was found, in a table cell.
fn method(test: &SignFlipTest) -> String {
    match test.seed {
        None => format!("exact, all 2^{} sign patterns", test.n),
        Some(seed) => format!("{} sampled sign patterns, seed {seed}", test.n_evaluated),
    }
}

/// The claims as a table.
pub fn claims_table(answer: &KnownAnswer) -> Table {
    let mut table = Table::new([
        "id",
        "claim (B only)",
        "set",
        "n",
        "non-tied n",
        "mean B, Early Modern model",
        "mean B, Modern model",
        "difference (expected < 0)",
        "95 % CI (bootstrap)",
        "p (one-sided)",
        "test",
        "p (Holm)",
        "ours",
    ]);
    for c in &answer.claims {
        table.push([
            c.id.clone(),
            c.statement.clone(),
            format!("`{}`, {}", c.set, c.group),
            c.test.n.to_string(),
            c.non_tied.to_string(),
            format!("{:.3}", c.mean_early),
            format!("{:.3}", c.mean_modern),
            format!("{:.3}", c.test.mean_difference),
            ci(&c.interval),
            format_p(c.test.p_value),
            method(&c.test),
            format_p(c.p_holm),
            c.verdict.as_str().to_owned(),
        ]);
    }
    table
}

/// A dose-response test as a table: mean B per dose.
pub fn dose_table(d: &DoseResponse) -> Table {
    let mut table = Table::new([
        "model",
        "KJV share of training verses",
        "mean B",
        "95 % CI",
        "mean rank of −B",
    ]);
    for (dose, rank) in d.doses.iter().zip(&d.test.mean_ranks) {
        table.push([
            dose.model.clone(),
            format!("{} %", dose.dose),
            format!("{:.3}", dose.mean_bias),
            ci(&dose.interval),
            format!("{rank:.2}"),
        ]);
    }
    table
}

/// Absolute B and A per model, set and group.
pub fn absolute_table(answer: &KnownAnswer) -> Table {
    let mut table = Table::new([
        "set", "model", "group", "n", "mean B", "95 % CI", "mean A", "95 % CI",
    ]);
    for a in &answer.absolute {
        table.push([
            format!("`{}`", a.set),
            a.model.clone(),
            a.group.as_str().to_owned(),
            a.n.to_string(),
            format!("{:.3}", a.mean_bias),
            ci(&a.bias_interval),
            format!("{:.3}", a.mean_adequacy),
            ci(&a.adequacy_interval),
        ]);
    }
    table
}

/// Each model's separation of EME from ME sentences.
pub fn separation_table(answer: &KnownAnswer) -> Table {
    let mut table = Table::new([
        "set",
        "model",
        "B_EME − B_ME",
        "95 % CI (bootstrap)",
        "reads",
    ]);
    for s in &answer.separation {
        let reads = if s.interval.upper < 0.0 {
            "more Early Modern proposals for the EME sentences"
        } else if s.interval.lower > 0.0 {
            "more Early Modern proposals for the ME sentences"
        } else {
            "the interval includes 0: no separation shown"
        };
        table.push([
            format!("`{}`", s.set),
            s.model.clone(),
            format!("{:.3}", s.difference),
            ci(&s.interval),
            reads.to_owned(),
        ]);
    }
    table
}

/// The known-answer section of REPORT.md.
pub fn markdown(answer: &KnownAnswer) -> String {
    let holding = answer
        .claims
        .iter()
        .filter(|c| c.verdict == Verdict::Holds)
        .count();
    let trends_holding = answer
        .dose_response
        .iter()
        .filter(|d| d.verdict == Verdict::Holds)
        .count();
    let sets: Vec<String> = answer
        .sets
        .iter()
        .map(|s| {
            format!(
                "- `{}` (`datasets/{}`, sha256 `{}`). {}",
                s.name, s.pinned.file, s.pinned.sha256, s.selected_by
            )
        })
        .collect();
    let defaults = SignFlipOptions::default();
    format!(
        "### Known answer: models trained here, claims fixed before the run\n\n\
         The paper's claim is that B and A separate an Early Modern model from a Modern one. To \
         see whether they do, lmbias trains models here: all-MiniLM-L6-v2 continued on the King \
         James Bible (Early Modern English of 1611, in a later edition's modern spelling), \
         separately on the World English Bible (Modern English), on Shakespeare's plays, and on \
         mixtures of the two Bibles' verses (25, 50 and 75 % in the KJV's wording), with \
         identical settings, vocabulary, seed and step budget. Between the two Bibles \
         translation and period both differ: the translations also use function words at \
         different rates (*that*/*who*, *an*/*one*) and name God differently (*the LORD*/*Yahweh*). \
         They are a known-answer experiment, not the paper's models.\n\n\
         What the method must show is fixed in `datasets/{file}` (`{name}`, frozen {frozen}, \
         sha256 `{sha}`); reproduce-paper refuses any other digest. **Rater:** every proposal of \
         every model is rated by the lexicon `datasets/{lexicon}` (sha256 `{lexicon_sha}`) alone, \
         a word it does not list 0: no model's training text or output made it. **Sets:**\n\n\
         {sets}\n\n**Claims are about B only:** A = 1 − |v − B| / 2 is a function of B and v(s) (for v = −1 \
         it is (1 − B)/2, for v = +1 (1 + B)/2), so a claim about A would restate one about B; \
         A stays in the tables.\n\n\
         **{holding} of {total} claims hold** after Holm's correction over the {total} claims and \
         the {trends} dose-response tests ({tests} tests, family-wise α = {alpha}); \
         {trends_holding} of the {trends} dose-response tests hold.\n\n{claims}\n\
         Each claim pairs the two models' B sentence by sentence (both scored the same \
         sentences) and tests the differences B(Early Modern model) − B(Modern model) with a \
         one-sided paired sign-flip permutation test (Fisher 1935, *The Design of \
         Experiments*): exact over all 2^n sign patterns up to {max_exact} sentences, else \
         {samples} sampled patterns (seed {seed}), the observed one included, so p ≥ 1/{samples}. \
         A sentence whose two B are equal (both models proposed only words the lexicon rates 0, \
         say) carries no evidence: *non-tied n* counts those that differ, and p cannot fall below \
         2^−(non-tied n). The interval is the mean difference's 95 % percentile bootstrap \
         interval over sentences (10,000 resamples). **Rule:** a claim holds when its mean \
         difference is below 0 and its Holm-adjusted p is below {alpha}.\n\n\
         {doses}\
         #### Absolute B and A, and each model's separation of the periods' sentences\n\n\
         Mean B and A per model, set and group, rated by the lexicon, with 95 % bootstrap \
         intervals over sentences:\n\n{absolute}\n\
         The paper's question is how a model fits each period's sentences: its B on the Early \
         Modern sentences against its B on the Modern ones (B_EME − B_ME; below 0 when it \
         proposes more Early Modern words where the sentence is Early Modern). The interval \
         resamples each group within itself:\n\n{separation}\n\
         Set beside each claim on Early Modern sentences (the difference between two models on \
         the same sentences), the Early Modern model's own separation of the periods' \
         sentences:\n\n{beside}\n{history}\n",
        file = CLAIMS_FILE,
        name = answer.name,
        frozen = answer.frozen,
        sha = answer.sha256,
        lexicon = answer.lexicon.file,
        lexicon_sha = answer.lexicon.sha256,
        sets = sets.join("\n"),
        total = answer.claims.len(),
        tests = answer.claims.len() + answer.dose_response.len(),
        trends = answer.dose_response.len(),
        alpha = answer.alpha,
        claims = claims_table(answer).to_markdown(),
        max_exact = MAX_EXACT_PAIRS,
        samples = defaults.n_samples,
        seed = defaults.seed,
        doses = answer
            .dose_response
            .iter()
            .map(dose_markdown)
            .collect::<String>(),
        absolute = absolute_table(answer).to_markdown(),
        separation = separation_table(answer).to_markdown(),
        beside = model_or_sentence(answer),
        history = HISTORY,
    )
}

/// One dose-response test's subsection: the statement, Page's test, the verdict and the table.
fn dose_markdown(d: &DoseResponse) -> String {
    format!(
        "#### Dose-response ({id})\n\n{statement}. Page's test over the {blocks} sentences \
         ({informative} of which do not tie across the {models} models), the models ranked within \
         each sentence by −B: L = {l:.1} (its expectation without a trend {expected:.1}), \
         permutation p = {p} ({samples} patterns, seed {seed}, the observed one included), \
         Holm-adjusted {holm}: **{verdict}**.\n\n{table}\n",
        id = d.id,
        statement = capitalised(&d.statement),
        blocks = d.test.blocks,
        informative = d.test.informative_blocks,
        models = d.doses.len(),
        l = d.test.l,
        expected = d.test.expected_l,
        p = format_p(d.test.p_value),
        samples = d.test.n_samples,
        seed = d.test.seed,
        holm = format_p(d.p_holm),
        verdict = d.verdict.as_str(),
        table = dose_table(d).to_markdown(),
    )
}

/// For each claim on Early Modern sentences: the difference between its two models beside the
/// Early Modern model's own B_EME − B_ME on that set, and which is larger (issue #46: B may
/// track the model more than the sentence).
fn model_or_sentence(answer: &KnownAnswer) -> String {
    let mut lines = Vec::new();
    for c in answer
        .claims
        .iter()
        .filter(|c| c.group == Group::EarlyModern)
    {
        let Some(own) = answer
            .separation
            .iter()
            .find(|s| s.model == c.early_model && s.set == c.set)
        else {
            continue;
        };
        let reads = if c.test.mean_difference.abs() > own.difference.abs() {
            "B follows the model more than the sentence"
        } else {
            "B follows the sentence at least as much as the model"
        };
        lines.push(format!(
            "- {id} (`{set}`): between the models {between:.3}; within {model}, B_EME − B_ME \
             {within:.3}: {reads}.",
            id = c.id,
            set = c.set,
            between = c.test.mean_difference,
            model = c.early_model,
            within = own.difference,
        ));
    }
    lines.join("\n") + "\n"
}

fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use lmbias_papers::known_answer::{FROZEN_SHA256, check};
    use lmbias_papers::testing::{claims, labels, run};

    #[test]
    fn markdown_snapshot() {
        let answer = check(&claims(), FROZEN_SHA256, &run(-0.2), &labels()).unwrap();
        insta::assert_snapshot!(markdown(&answer));
    }
}
