//! Rules through serde (run with `--features serde`).

#![allow(clippy::unwrap_used, missing_docs)]

use dama_engine::{
    CaptureRemoval, ManCaptureDirections, MidCapturePromotion, OnePieceEachRule, Rules, Variant,
};

#[test]
fn rules_round_trip_through_toml_and_json() {
    let variants = [
        Rules::default(),
        Rules {
            promotion_mid_capture: MidCapturePromotion::ContinueAsKing,
            one_piece_each: OnePieceEachRule::KingBeatsMan,
            no_capture_limit: None,
            ..Rules::default()
        },
        Rules::for_variant(Variant::Armenian),
        Rules::for_variant(Variant::Dameo),
        Rules {
            croda_removal: CaptureRemoval::Immediate,
            croda_man_captures: ManCaptureDirections::ForwardAndSideways,
            one_piece_each: OnePieceEachRule::Draw,
            ..Rules::for_variant(Variant::Croda)
        },
        Rules {
            no_capture_limit: Some(80),
            ..Rules::default()
        },
    ];
    for rules in variants {
        let t = toml::to_string(&rules).unwrap();
        assert_eq!(toml::from_str::<Rules>(&t).unwrap(), rules, "{t}");
        let j = serde_json::to_string(&rules).unwrap();
        assert_eq!(serde_json::from_str::<Rules>(&j).unwrap(), rules, "{j}");
    }
}

#[test]
fn rules_text_format() {
    let r: Rules =
        toml::from_str("promotion_mid_capture = \"continue_as_king\"\nno_capture_limit = 0\n")
            .unwrap();
    assert_eq!(r.promotion_mid_capture, MidCapturePromotion::ContinueAsKing);
    assert_eq!(r.no_capture_limit, None);
    assert_eq!(r.one_piece_each, OnePieceEachRule::Draw);
    assert_eq!(toml::from_str::<Rules>("").unwrap(), Rules::default());
    // Old JSON with null still reads as off.
    let r: Rules = serde_json::from_str("{\"no_capture_limit\": null}").unwrap();
    assert_eq!(r.no_capture_limit, None);
    assert!(toml::from_str::<Rules>("bogus = 1").is_err());
    // A variant's defaults fill the keys a config leaves out.
    let r: Rules = toml::from_str("variant = \"dameo\"\n").unwrap();
    assert_eq!(r, Rules::for_variant(Variant::Dameo));
    assert_eq!(r.no_capture_limit, None);
    assert_eq!(r.one_piece_each, OnePieceEachRule::PlayOn);
    let r: Rules = toml::from_str("variant = \"croda\"\nno_capture_limit = 60\n").unwrap();
    assert_eq!(r.no_capture_limit, Some(60));
    assert_eq!(r.croda_removal, CaptureRemoval::EndOfMove);
    assert!(toml::from_str::<Rules>("variant = \"chess\"").is_err());
    // Turkish rules serialize as before variants existed.
    assert_eq!(
        toml::to_string(&Rules::default()).unwrap(),
        "promotion_mid_capture = \"end_of_move\"\none_piece_each = \"draw\"\nno_capture_limit = 50\n"
    );
}
